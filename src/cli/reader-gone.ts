/**
 * Notices that nobody reads our stdout any more (`conduit-mcp watch | head -1`, once `head` has
 * exited; a parent process that closed its end) while nothing is being written. A pipe or a
 * socket tells its writer only when it writes (EPIPE), and a quiet server gives watch nothing to
 * write, so the program would linger until the server next spoke. On Linux:
 *
 * - a pipe's other ends can be seen in /proc: the processes that hold it open for reading are
 *   found once, then checked on a short interval; when none is left, `onGone` runs;
 * - a socket (what Node's `spawn` gives a child for `stdio: "pipe"`) can be read from: a
 *   non-blocking read says "nothing yet" (EAGAIN) while the other end is open and end-of-file
 *   once it is closed, checked on the same interval.
 *
 * Elsewhere, or when the readers cannot be seen (another user's process, a blocking socket),
 * this does nothing and the next write's EPIPE ends the watch as before.
 */
import { read, readdirSync, readFileSync, readlinkSync } from "node:fs";

const CHECK_EVERY_MS = 200;
/** O_ACCMODE and O_WRONLY, as /proc/<pid>/fdinfo's octal `flags` carries them. */
const ACCESS_MODE = 0o3;
const WRITE_ONLY = 0o1;
/** O_NONBLOCK, in the same octal flags. */
const NON_BLOCKING = 0o4000;

type End = { pid: string; fd: string };

function link(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}

/** Every open end of `pipe` (as `pipe:[inode]`) held for reading by another process. */
function readersOf(pipe: string): End[] {
  const found: End[] = [];
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name) && name !== String(process.pid));
  } catch {
    return found;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or not ours to look at
    }
    for (const fd of fds) {
      if (link(`/proc/${pid}/fd/${fd}`) !== pipe) continue;
      try {
        const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/${pid}/fdinfo/${fd}`, "utf8"))?.[1];
        if (flags !== undefined && (Number.parseInt(flags, 8) & ACCESS_MODE) !== WRITE_ONLY) {
          found.push({ pid, fd });
        }
      } catch {
        // closed meanwhile
      }
    }
  }
  return found;
}

/** Starts watching file descriptor `fd`'s readers; returns the function that stops it. */
export function onReaderGone(fd: number, onGone: () => void): () => void {
  if (process.platform !== "linux") return () => {};
  const end = link(`/proc/self/fd/${fd}`);
  if (end?.startsWith("pipe:")) return onPipeReadersGone(end, onGone);
  if (end?.startsWith("socket:")) return onSocketClosed(fd, onGone);
  return () => {};
}

function onPipeReadersGone(pipe: string, onGone: () => void): () => void {
  let readers = readersOf(pipe);
  if (readers.length === 0) return () => {}; // cannot see them: leave it to EPIPE
  const timer = setInterval(() => {
    readers = readers.filter((end) => link(`/proc/${end.pid}/fd/${end.fd}`) === pipe);
    if (readers.length === 0) readers = readersOf(pipe);
    if (readers.length > 0) return;
    clearInterval(timer);
    onGone();
  }, CHECK_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * A socket's other end closed: a read gives end-of-file. Only a non-blocking one is read (a
 * blocking read would hold a thread of the pool until the reader writes or goes); whatever the
 * reader sends us is nobody's data and is dropped.
 */
function onSocketClosed(fd: number, onGone: () => void): () => void {
  let flags: number;
  try {
    const octal = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"))?.[1];
    flags = octal === undefined ? 0 : Number.parseInt(octal, 8);
  } catch {
    return () => {};
  }
  if ((flags & NON_BLOCKING) === 0 || (flags & ACCESS_MODE) === WRITE_ONLY) return () => {};
  const scratch = Buffer.alloc(1);
  let stopped = false;
  let reading = false;
  const timer = setInterval(() => {
    if (reading) return;
    reading = true;
    read(fd, scratch, 0, 1, null, (err, bytes) => {
      reading = false;
      if (stopped) return;
      if (err?.code === "EAGAIN" || (!err && bytes > 0)) return;
      stop();
      // End-of-file (or a reset: it closed with our lines unread) is the reader gone; another
      // error (not readable after all) leaves it to EPIPE.
      if (!err || err.code === "ECONNRESET") onGone();
    });
  }, CHECK_EVERY_MS);
  timer.unref();
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  return stop;
}
