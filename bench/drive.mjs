// One client, one workload, nothing else: for instruction counts (valgrind --tool=callgrind
// counts the whole process, so the difference between two sizes is the cost of the extra calls).
//   [WARM=n] node bench/drive.mjs conduit|base|bare|official N [sequential|c64|listing] [stdio|http] [modern|legacy] [BASE_DIR]
import { barePeer } from "./bare-peer.mjs";
import { load, open } from "./clients.mjs";
import { concurrent, sequential } from "./common.mjs";

const [key, n, mode = "sequential", transport = "stdio", era = "modern", baseDir] = process.argv.slice(2);
const { target, stop } = await barePeer(transport);
const c = await open(key, await load(key, transport, baseDir), transport, era, target);
const work = async (count) => {
  if (mode === "listing") for (let i = 0; i < count; i++) await c.listAll();
  else if (mode === "c64") await concurrent(c, count, 64);
  else await sequential(c, count);
};
// WARM=n first (the same for both sizes), so the JIT's compiling is mostly over before N counts.
await work(Number(process.env.WARM ?? 0));
await work(Number(n));
await c.close();
await stop();
