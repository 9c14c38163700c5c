// The fair share of a search's top results (src/search/fair-share.ts), one pass, against the
// forward scan per passed match it replaced (copied here as the peer), over rankings like a
// search's: ~100 ranked matches, one server crowding the top. Interleaved in one process;
// medians of per-round ratios (the machine is shared and loaded: say the load with the figure).
//
//   node bench/tool-search-fair-share.mjs   (fairShare is internal: compiled here from src/)
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import ts from "typescript";

const source = readFileSync(new URL("../src/search/fair-share.ts", import.meta.url), "utf8");
const js = ts.transpileModule(source, {
  compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
}).outputText;
const { COMPETITIVE, fairShare } = await import(`data:text/javascript,${encodeURIComponent(js)}`);

function scan(ranked, limit) {
  if (ranked.length <= limit) return ranked.slice();
  const cap = Math.max(Math.min(2, limit), Math.ceil(limit / new Set(ranked.map((r) => r.serverId)).size));
  const taken = [];
  const passed = [];
  const counts = new Map();
  for (let i = 0; i < ranked.length && taken.length < limit; i++) {
    const r = ranked[i];
    const c = counts.get(r.serverId) ?? 0;
    let rival = false;
    const floor = r.score * COMPETITIVE;
    for (let j = i + 1; j < ranked.length && ranked[j].score >= floor; j++) {
      const o = ranked[j];
      if (o.serverId !== r.serverId && (counts.get(o.serverId) ?? 0) < cap) {
        rival = true;
        break;
      }
    }
    if (c >= cap && rival) {
      passed.push(r);
      continue;
    }
    counts.set(r.serverId, c + 1);
    taken.push(r);
  }
  for (const r of passed) if (taken.length < limit) taken.push(r);
  return taken;
}

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
