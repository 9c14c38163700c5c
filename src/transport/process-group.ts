/**
 * Signals for a server's whole process group, so a server started through a launcher (`npx`,
 * a shell script) takes its grandchildren with it. On POSIX each server is spawned detached, as
 * the leader of its own group; the group id is the leader's pid.
 */

// node:fs without an ESM import: Node builds that facade by reading every export, and the lazy
// stream getters among them load node:stream (milliseconds at import).
const { readdirSync, readFileSync } = process.getBuiltinModule("node:fs");
const POSIX = process.platform !== "win32";

/** Sends `signal` to the group (or just the process on Windows). False when nothing was there. */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(POSIX ? -pid : pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * True while any process of the group is alive. A zombie does not count: where nothing reaps
 * orphans (a container whose init does not), killed grandchildren linger as zombies, still
 * answering signal 0. On Linux, /proc tells them apart.
 */
export function groupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  if (process.platform !== "linux") return true;
  try {
    for (const entry of readdirSync("/proc")) {
      if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      } catch {
        continue; // exited while we looked
      }
      // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so split after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid && fields[0] !== "Z") return true;
    }
    return false;
  } catch {
    return true;
  }
}

/**
 * Groups still running when this process exits get SIGKILL: a host that exits without closing
 * its clients must not leave servers behind. Registered once, only while groups are live.
 */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function killAllOnExit(): void {
  for (const pid of liveGroups) signalGroup(pid, "SIGKILL");
}

export function trackGroup(pid: number): void {
  liveGroups.add(pid);
  if (!exitHookInstalled) {
    process.on("exit", killAllOnExit);
    exitHookInstalled = true;
  }
}

export function untrackGroup(pid: number): void {
  liveGroups.delete(pid);
  if (liveGroups.size === 0 && exitHookInstalled) {
    process.off("exit", killAllOnExit);
    exitHookInstalled = false;
  }
}

/** Resolves after `ms`, or when `done()` becomes true (checked every `step` ms). */
export async function waitUntil(done: () => boolean, ms: number, step = 20): Promise<boolean> {
  const until = Date.now() + ms;
  while (!done()) {
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, Math.min(step, Math.max(1, until - Date.now()))));
  }
  return true;
}
