/**
 * A file an operator named (a configuration, a policy), read synchronously but never waiting for
 * good: opened without blocking (a FIFO with no writer would hold the thread, signals included,
 * until one came), refused unless it is a regular file (a FIFO, `/dev/zero`, a directory), and
 * read at most `maxBytes` + 1 bytes whatever size it said it had (a file that grows while read).
 */

// node:fs without an ESM import: Node builds that facade by reading every export, and the lazy
// stream getters among them load node:stream (milliseconds at import).
const { closeSync, constants, fstatSync, openSync, readSync } = process.getBuiltinModule("node:fs");

/** Why a file was not read: an errno code (`ENOENT`), or one of these. */
export class FileReadError extends Error {
  readonly code: string;
  constructor(code: string) {
    super(code === "not_a_file" ? "is not a regular file" : code === "too_large" ? "is too large" : code);
    this.code = code;
  }
}

/** The file's text (UTF-8), or a `FileReadError` saying why not. */
export function readRegularFile(file: string, maxBytes: number): string {
  const cannot = (err: unknown) => new FileReadError((err as NodeJS.ErrnoException).code ?? "unreadable");
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    throw cannot(err);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new FileReadError("not_a_file");
    const buf = Buffer.allocUnsafe(Math.min(maxBytes, stat.size) + 1);
    let n = 0;
    for (;;) {
      let read: number;
      try {
        read = readSync(fd, buf, n, buf.length - n, null);
      } catch (err) {
        throw cannot(err);
      }
      if (read === 0) break;
      n += read;
      if (n > maxBytes) throw new FileReadError("too_large");
      if (n === buf.length) break;
    }
    return buf.toString("utf8", 0, n);
  } finally {
    closeSync(fd);
  }
}
