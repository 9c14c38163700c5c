// The fair share of a search's top results (src/search/fair-share.ts), one pass, against the
// forward scan per passed match it replaced (copied here as the peer), over rankings like a
// search's: ~100 ranked matches, one server crowding the top. Interleaved in one process;
// medians of per-round ratios (the machine is shared and loaded: say the load with the figure).
//
//   node bench/tool-search-fair-share.mjs   (fairShare is internal: compiled here from src/)
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import ts from "typescript";
import { fairShareQuadratic } from "../test/fixtures/lib/fair-share-quadratic.mjs";

const source = readFileSync(new URL("../src/search/fair-share.ts", import.meta.url), "utf8");
const js = ts.transpileModule(source, {
  compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
}).outputText;
const { COMPETITIVE, fairShare } = await import(`data:text/javascript,${encodeURIComponent(js)}`);

const scan = (ranked, limit) => fairShareQuadratic(ranked, limit, COMPETITIVE);

// A crowding server's 90 close matches on top, then two other servers' weaker ones.
const ranked = [
  ...Array.from({ length: 90 }, (_, i) => ({ serverId: "stuffed", score: 20 - i * 0.05 })),
  ...Array.from({ length: 10 }, (_, i) => ({ serverId: i % 2 ? "a" : "b", score: 10.5 - i * 0.01 })),
];
const time = (f) => {
  const t = process.hrtime.bigint();
  for (let i = 0; i < 2_000; i++) f(ranked, 10);
  return Number(process.hrtime.bigint() - t) / 2_000 / 1_000;
};
if (fairShare(ranked, 10).length !== 10) throw new Error("unexpected result");
const ratios = [];
const ours = [];
const theirs = [];
for (let round = 0; round < 15; round++) {
  const a = time(fairShare);
  const b = time(scan);
  ours.push(a);
  theirs.push(b);
  ratios.push(a / b);
}
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
console.log(
  `fairShare over ${ranked.length} ranked, limit 10: one pass ${median(ours).toFixed(2)} µs, ` +
    `forward scan ${median(theirs).toFixed(2)} µs; median per-round ratio ${median(ratios).toFixed(3)} ` +
    `(load average ${loadavg()[0].toFixed(1)})`,
);
