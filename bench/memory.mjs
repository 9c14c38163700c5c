// How the memory cells read a process's memory, shared by bench/suite.mjs and
// bench/memory-breakdown.mjs so both measure every client (bare, conduit, base, official) the same way.
//
// Two things made the old reading (RSS growth from just after the import, default V8 flags, two
// full GCs) drift with nothing changed in any client:
// - V8's young generation grows during the burst of connections (its semi-space doubles from 1 MB
//   toward 16 MB when many objects survive a scavenge). That memory is the collector's working
//   space, shared by the process and not held by any client, yet it landed in the figure as 35-75 KB
//   per client, in steps: the bare client read 69-83 KB in one cell and 128 KB with the semi-space
//   held at 16 MB, against 46 KB with it held at 1 MB.
// - Memory that is freed a moment later: undici compiles its WebAssembly HTTP parser in the
//   background on the first request, and the compiler's scratch memory (~20 MB) is released seconds
//   later, so a reading taken too soon counts it (a second batch then measured negative RSS).
// - Memory freed but kept by the C allocator: glibc raises its mmap threshold each time a large
//   block is freed, so later large blocks (V8's compiler zones, on its background threads) come
//   from a thread's arena and stay there when freed. In one run of four a worker thread's arena
//   held 10 MB more (48 KB "per client", conduit 135 or 184 KB for the same tree).
// So the fixed cell runs the child with the young generation held at one size (the same for every
// client), bytecode kept (flushing depends on how many collections a client's garbage caused),
// the collector on the main thread (nothing left to sweep when gc() returns) and glibc's mmap
// threshold fixed at its default 128 KB (large blocks go back to the system when freed), and reads
// memory only once RSS has stopped moving after a full GC.

/** The child's V8 flags for the fixed cell (node's own flags, before the script). */
export const FIXED_V8_FLAGS = [
  "--expose-gc",
  "--min-semi-space-size=1",
  "--max-semi-space-size=1",
  "--no-flush-bytecode",
  "--single-threaded-gc",
];

/** The child's environment for the fixed cell: glibc's mmap threshold not raised on free. */
export const FIXED_ENV = { ...process.env, MALLOC_MMAP_THRESHOLD_: "131072" };

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Full GC, then again every 200 ms until two readings in a row are within 0.5 % of each other
 * (at most 4 s): `process.memoryUsage()` once the process holds only what is live.
 */
export async function settled() {
  const gc = globalThis.gc;
  if (typeof gc !== "function") throw new Error("settled() needs --expose-gc");
  gc();
  let last = process.memoryUsage();
  for (let i = 0; i < 20; i++) {
    await sleep(200);
    gc();
    gc();
    const m = process.memoryUsage();
    const still = Math.abs(m.rss - last.rss) <= last.rss * 0.005;
    last = m;
    if (still) break;
  }
  return last;
}

/** Per client, in KB, between two readings. */
export function perClient(a, b, n) {
  const per = (x, y) => (x - y) / n / 1024;
  return { rssKB: per(b.rss, a.rss), heapKB: per(b.heapUsed, a.heapUsed) };
}
