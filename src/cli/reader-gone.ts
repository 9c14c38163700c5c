/**
 * Notices that nobody reads our stdout pipe any more (`conduit-mcp watch | head -1`, once `head`
 * has exited) while nothing is being written. A pipe tells its writer only when it writes
 * (EPIPE), and a quiet server gives watch nothing to write, so the program would linger until
 * the server next spoke. On Linux the pipe's other ends can be seen in /proc: the processes that
 * hold it open for reading are found once, then checked on a short interval; when none is left,
 * `onGone` runs. Elsewhere, or when the readers cannot be seen (another user's process), this
 * does nothing and the next write's EPIPE ends the watch as before.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

const CHECK_EVERY_MS = 200;
/** O_ACCMODE and O_WRONLY, as /proc/<pid>/fdinfo's octal `flags` carries them. */
const ACCESS_MODE = 0o3;
const WRITE_ONLY = 0o1;

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
  const pipe = link(`/proc/self/fd/${fd}`);
  if (pipe === null || !pipe.startsWith("pipe:")) return () => {};
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
