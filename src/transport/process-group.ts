/**
 * Signals for a server's whole process group, so a server started through a launcher (`npx`,
 * a shell script) takes its grandchildren with it. On POSIX each server is spawned detached, as
 * the leader of its own group; the group id is the leader's pid.
 */

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

/** True while any process of the group is alive. */
export function groupAlive(pid: number): boolean {
  return signalGroup(pid, 0);
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
