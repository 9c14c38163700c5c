/**
 * Semantic ranking from an application's embedding hook, blended with the lexical one. Nothing
 * is downloaded or called unless the application passes `embed`; each tool's vector is asked for
 * once per hook and definition, then kept.
 */
import type { Tool } from "../shared/tool.js";
import { embeddingText } from "./document.js";
import { fairShare } from "./fair-share.js";
import { byScore, type RankOptions, type Scored, type ToolSearchIndex } from "./tool-search-index.js";

/** Texts in, one vector per text out (same order). */
export type EmbedFunction = (texts: string[]) => Promise<number[][]>;

/** How much the semantic score counts in the blend (the lexical one counts for the rest). */
export const SEMANTIC_WEIGHT = 0.5;

const vectors = new WeakMap<EmbedFunction, WeakMap<Tool, Map<string, number[]>>>();

/**
 * Lexical scores scaled to [0, 1] by the best one, blended with the cosine similarity of the
 * query's vector and each tool's; then the same fair share as the lexical search.
 */
export async function blendedSearch<T>(
  index: ToolSearchIndex<T>,
  query: string,
  embed: EmbedFunction,
  options: RankOptions<T> & { limit: number },
): Promise<Scored<T>[]> {
  // The tools' own scores, without the server prior: the blend's fair share then bounds a
  // stuffing server as before (the prior was measured on the lexical search only).
  const lexical = index.rank(query, options);
  const top = lexical.reduce((m, r) => Math.max(m, r.base), 0);
  const lex = new Map(lexical.map((r) => [r.name, top > 0 ? r.base / top : 0]));
  const items = index
    .items()
    .filter(
      (d) => (!options.servers || options.servers.has(d.serverId)) && (!options.keep || options.keep(d.item)),
    );
  let cache = vectors.get(embed);
  if (!cache) {
    cache = new WeakMap();
    vectors.set(embed, cache);
  }
  const missing = items.filter((d) => !cache.get(d.tool)?.has(d.name));
  const asked = [query, ...missing.map((d) => embeddingText(d.name, d.tool))];
  const answer = await embed(asked);
  if (!Array.isArray(answer) || answer.length !== asked.length || !answer.every(isVector)) {
    throw new TypeError("conduit-mcp: the embed hook must return one array of numbers per text");
  }
  missing.forEach((d, i) => {
    const byName = cache.get(d.tool) ?? new Map<string, number[]>();
    byName.set(d.name, answer[i + 1]!);
    cache.set(d.tool, byName);
  });
  const q = answer[0]!;
  const out: Scored<T>[] = [];
  for (const d of items) {
    const sem = Math.max(0, cosine(q, cache.get(d.tool)!.get(d.name)!));
    const score = (1 - SEMANTIC_WEIGHT) * (lex.get(d.name) ?? 0) + SEMANTIC_WEIGHT * sem;
    if (score > 0) out.push({ item: d.item, name: d.name, serverId: d.serverId, score, base: score });
  }
  return fairShare(out.sort(byScore), options.limit);
}

function isVector(v: unknown): v is number[] {
  return Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "number" && Number.isFinite(x));
}

function cosine(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < n; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
