/**
 * A BM25F index over tools, kept per server so a server whose list changed is re-indexed alone.
 *
 * Our own rather than a library (minisearch, flexsearch, orama, wink-bm25): the bounds on rank
 * manipulation need control none of them gives together: per-field term clamps, one saturation
 * over the weighted fields (BM25F, so repeating a word in five fields counts once, saturated),
 * the best synonym per query word instead of the sum, and a cap on one server's share of the
 * results. It is about 200 lines with no dependency, so the core's import time does not move.
 */
import type { Tool } from "../shared/tool.js";
import { FIELDS, toolFields } from "./document.js";
import { fairShare } from "./fair-share.js";
import { expand } from "./synonyms.js";
import { terms } from "./text.js";

/** What the index holds for a tool; `T` is the caller's own item, handed back with the score. */
export interface SearchItem<T> {
  /** The unique (qualified) name: the tie-breaker, and what results are sorted by. */
  name: string;
  serverId: string;
  tool: Tool;
  item: T;
}

export interface Scored<T> {
  item: T;
  name: string;
  serverId: string;
  score: number;
}

interface Doc<T> extends SearchItem<T> {
  /** Term to its frequency in each field. */
  tf: Map<string, number[]>;
  lens: number[];
}

export interface RankOptions<T> {
  /** Only these servers' tools. */
  servers?: ReadonlySet<string>;
  /** Only items this keeps (the caller's visibility rules). */
  keep?: (item: T) => boolean;
}

// BM25's saturation: a term's weighted frequency `t` scores t(k1+1)/(t+k1), so never more than
// (k1+1) times its idf however often a text repeats it.
const K1 = 1.2;
// And before that, a word counts at most twice in one field: tool texts are short, repetition
// in them is padding, not emphasis.
const MAX_TF = 2;

export class ToolSearchIndex<T> {
  readonly #servers = new Map<string, Doc<T>[]>();
  readonly #postings = new Map<string, Set<Doc<T>>>();
  readonly #totals = FIELDS.map(() => 0);
  #count = 0;

  /** How many tools are indexed. */
  get size(): number {
    return this.#count;
  }

  /**
   * Replaces one server's tools. A list of the same tools (same definitions, same names) as the
   * one indexed is a no-op, so callers may hand every listing in without cost.
   */
  setServer(serverId: string, items: readonly SearchItem<T>[]): void {
    const old = this.#servers.get(serverId);
    if (old && old.length === items.length && old.every((d, i) => same(d, items[i]!))) {
      // Same tools: keep the index, refresh the caller's items (they may be new objects).
      old.forEach((d, i) => {
        d.item = items[i]!.item;
      });
      return;
    }
    this.removeServer(serverId);
    const docs = items.map((it) => this.#add(it));
    this.#servers.set(serverId, docs);
  }

  removeServer(serverId: string): void {
    const docs = this.#servers.get(serverId);
    if (!docs) return;
    this.#servers.delete(serverId);
    for (const d of docs) {
      for (const term of d.tf.keys()) {
        const set = this.#postings.get(term)!;
        set.delete(d);
        if (set.size === 0) this.#postings.delete(term);
      }
      d.lens.forEach((l, f) => {
        this.#totals[f]! -= l;
      });
      this.#count--;
    }
  }

  serverIds(): string[] {
    return [...this.#servers.keys()];
  }

  /** Every matching tool, best first, ties by name. */
  rank(query: string, options: RankOptions<T> = {}): Scored<T>[] {
    const slots = expand(terms(query, 64));
    const scores = new Map<Doc<T>, number>();
    const n = this.#count;
    const avg = this.#totals.map((t) => (n === 0 ? 1 : Math.max(t / n, 1)));
    for (const slot of slots) {
      // The best of the slot's terms (the word or one of its synonyms) for each tool.
      const best = new Map<Doc<T>, number>();
      for (const [term, weight] of slot) {
        const docs = this.#postings.get(term);
        if (!docs) continue;
        const idf = Math.log(1 + (n - docs.size + 0.5) / (docs.size + 0.5));
        for (const d of docs) {
          if (options.servers && !options.servers.has(d.serverId)) continue;
          const s = weight * idf * saturate(weighted(d, term, avg));
          if (s > (best.get(d) ?? 0)) best.set(d, s);
        }
      }
      for (const [d, s] of best) scores.set(d, (scores.get(d) ?? 0) + s);
    }
    const out: Scored<T>[] = [];
    for (const [d, score] of scores) {
      if (options.keep && !options.keep(d.item)) continue;
      out.push({ item: d.item, name: d.name, serverId: d.serverId, score });
    }
    return out.sort(byScore);
  }

  /** The top `limit` matches, no server taking more than its fair share (see fair-share.ts). */
  search(query: string, limit: number, options: RankOptions<T> = {}): Scored<T>[] {
    return fairShare(this.rank(query, options), limit);
  }

  /** Every indexed item, by name. */
  items(): SearchItem<T>[] {
    const all: SearchItem<T>[] = [];
    for (const docs of this.#servers.values()) all.push(...docs);
    return all.sort((a, b) => compareNames(a.name, b.name));
  }

  #add(it: SearchItem<T>): Doc<T> {
    const fields = toolFields(it.tool, it.serverId);
    const tf = new Map<string, number[]>();
    fields.forEach((ts, f) => {
      for (const t of ts) {
        let row = tf.get(t);
        if (!row) {
          row = FIELDS.map(() => 0);
          tf.set(t, row);
        }
        row[f]!++;
      }
    });
    const doc: Doc<T> = { ...it, tf, lens: fields.map((ts) => ts.length) };
    for (const term of tf.keys()) {
      let set = this.#postings.get(term);
      if (!set) {
        set = new Set();
        this.#postings.set(term, set);
      }
      set.add(doc);
    }
    doc.lens.forEach((l, f) => {
      this.#totals[f]! += l;
    });
    this.#count++;
    return doc;
  }
}

/** BM25F: each field's frequency, length-normalised and weighted, summed before saturating. */
function weighted<T>(d: Doc<T>, term: string, avg: readonly number[]): number {
  const row = d.tf.get(term)!;
  let t = 0;
  for (let f = 0; f < row.length; f++) {
    const tf = Math.min(row[f]!, MAX_TF);
    if (tf === 0) continue;
    const spec = FIELDS[f]!;
    t += (spec.weight * tf) / (1 - spec.b + (spec.b * d.lens[f]!) / avg[f]!);
  }
  return t;
}

function saturate(t: number): number {
  return (t * (K1 + 1)) / (t + K1);
}

function same<T>(d: Doc<T>, it: SearchItem<T>): boolean {
  return d.tool === it.tool && d.name === it.name && d.serverId === it.serverId;
}

/** Code-unit order, so the order is the same in every locale and process. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function byScore(a: { score: number; name: string }, b: { score: number; name: string }): number {
  return b.score - a.score || compareNames(a.name, b.name);
}
