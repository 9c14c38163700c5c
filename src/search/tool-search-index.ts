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
import { fairShare, shareOf } from "./fair-share.js";
import { type PriorHandle, ServerPrior } from "./server-prior.js";
import { expand, questionSlot } from "./synonyms.js";
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
  /** The score from the tool's own texts, before the server prior (server-prior.ts). */
  base: number;
}

interface Doc<T> extends SearchItem<T> {
  /** A small integer, reused after removal: the doc's slot in a query's score arrays. */
  id: number;
  terms: string[];
  /** Each term's field frequencies (as in its posting), in the order of `terms`. */
  rows: number[];
  /** Its server's part in the server prior. */
  server: PriorHandle;
  lens: number[];
}

/**
 * A term's occurrence in one tool: its frequency per field, two bits a field (a frequency is
 * clamped to `MAX_TF` anyway), and its BM25F weight, cached.
 */
interface Posting<T> {
  doc: Doc<T>;
  row: number;
  /** `weighted()` for the index generation `gen` (recomputed when lengths change). */
  t: number;
  gen: number;
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
const NO_PRIOR = ServerPrior.none();

export class ToolSearchIndex<T> {
  readonly #servers = new Map<string, Doc<T>[]>();
  readonly #postings = new Map<string, Posting<T>[]>();
  readonly #totals = FIELDS.map(() => 0);
  readonly #free: number[] = [];
  #nextId = 0;
  #count = 0;
  /** Bumped by every change: cached posting weights of an older generation are stale. */
  #gen = 0;
  #scores = new Float64Array(0);
  #best = new Float64Array(0);
  readonly #prior = new ServerPrior();
  #baseScores = new Float64Array(0);

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
    const server = this.#prior.setServer(serverId, docs);
    for (const d of docs) d.server = server;
    this.#gen++;
  }

  removeServer(serverId: string): void {
    const docs = this.#servers.get(serverId);
    if (!docs) return;
    this.#servers.delete(serverId);
    this.#prior.removeServer(serverId);
    const gone = new Set(docs);
    const terms = new Set<string>();
    for (const d of docs) {
      for (const t of d.terms) terms.add(t);
      d.lens.forEach((l, f) => {
        this.#totals[f]! -= l;
      });
      this.#free.push(d.id);
      this.#count--;
    }
    for (const term of terms) {
      const kept = this.#postings.get(term)!.filter((p) => !gone.has(p.doc));
      if (kept.length === 0) this.#postings.delete(term);
      else this.#postings.set(term, kept);
    }
    this.#gen++;
  }

  serverIds(): string[] {
    return [...this.#servers.keys()];
  }

  /** Every matching tool, best first, ties by name. */
  rank(query: string, options: RankOptions<T> = {}, top = Number.POSITIVE_INFINITY): Scored<T>[] {
    const slots = expand(terms(query, 64));
    const boost = questionSlot(query);
    if (boost) slots.push(boost);
    const n = this.#count;
    const avg = this.#totals.map((t) => (n === 0 ? 1 : Math.max(t / n, 1)));
    const { scores, best } = this.#scratch();
    const hit: Doc<T>[] = [];
    // The best score so far (scores only grow): what the server prior is a share of.
    let bestScore = 0;
    for (const slot of slots) {
      // The best of the slot's terms (the word or one of its synonyms) for each tool.
      const touched: Doc<T>[] = [];
      const onlyHits = slot === boost;
      for (const [term, weight] of slot) {
        const list = this.#postings.get(term);
        if (!list) continue;
        const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
        for (const p of list) {
          if (onlyHits && scores[p.doc.id] === 0) continue;
          if (p.gen !== this.#gen) {
            p.t = weighted(p, avg);
            p.gen = this.#gen;
          }
          const s = weight * idf * ((p.t * (K1 + 1)) / (p.t + K1));
          const id = p.doc.id;
          if (best[id] === 0) touched.push(p.doc);
          if (s > best[id]!) best[id] = s;
        }
      }
      for (const d of touched) {
        if (scores[d.id] === 0) hit.push(d);
        scores[d.id]! += best[d.id]!;
        best[d.id] = 0;
        if (scores[d.id]! > bestScore) bestScore = scores[d.id]!;
      }
    }
    // The server prior (server-prior.ts) re-orders what the words matched, by the query's own
    // slots (not the question's reading verbs).
    const base = this.#lift(boost ? slots.slice(0, -1) : slots, hit, bestScore);
    // Only the best `top` scores (ties at the cut included) are sorted: with thousands of tools a
    // common word matches hundreds, and sorting them all was most of a query's time.
    let floor = 0;
    if (hit.length > top) {
      const ranked = Float64Array.from(hit, (d) => scores[d.id]!).sort();
      floor = ranked[ranked.length - top]!;
    }
    const out: Scored<T>[] = [];
    for (const d of hit) {
      const score = scores[d.id]!;
      // The scratch scores are shared by every query: left zero for the next (before `keep`,
      // the caller's code, runs and might throw).
      scores[d.id] = 0;
      if (score >= floor) {
        out.push({ item: d.item, name: d.name, serverId: d.serverId, score, base: base[d.id]! });
      }
    }
    const { servers, keep } = options;
    const kept = out.filter((r) => (!servers || servers.has(r.serverId)) && (!keep || keep(r.item)));
    return kept.sort(byScore);
  }

  /**
   * Score arrays kept between queries (all zero between them) rather than two arrays over every
   * tool allocated and zeroed by each query; grown when the index grows.
   */
  #scratch(): { scores: Float64Array; best: Float64Array } {
    if (this.#scores.length < this.#nextId) {
      const size = Math.max(this.#nextId, 2 * this.#scores.length);
      this.#scores = new Float64Array(size);
      this.#best = new Float64Array(size);
    }
    return { scores: this.#scores, best: this.#best };
  }

  /** The top `limit` matches, no server taking more than its fair share (see fair-share.ts). */
  search(query: string, limit: number, options: RankOptions<T> = {}): Scored<T>[] {
    // Ten times the limit is room enough for the fair share to pass over a crowding server.
    const ranked = this.rank(query, options, Math.max(limit * 10, 50));
    const lifted = fairShare(ranked, limit);
    // The prior lifts a whole server, and lifted scores can make another server's matches look
    // uncompetitive to the fair share: so it may re-order and bring tools in, but never give a
    // server more places than the share, or than the fair share over the tools' own scores does.
    const share = shareOf(ranked, limit);
    const over = [...places(lifted)].filter(([, n]) => n > share);
    if (over.length === 0) return lifted;
    const plain = fairShare(ranked.map((r) => ({ ...r, score: r.base })).sort(byScore), limit);
    const allowed = places(plain);
    return over.some(([id, n]) => n > (allowed.get(id) ?? 0)) ? plain : lifted;
  }

  /** Adds the server prior to the hits' scores; returns their scores before it, by doc id. */
  #lift(slots: readonly ReadonlyMap<string, number>[], hit: readonly Doc<T>[], top: number): Float64Array {
    const scores = this.#scores;
    if (this.#baseScores.length < scores.length) this.#baseScores = new Float64Array(scores.length);
    const base = this.#baseScores;
    if (hit.length === 0) return base;
    this.#prior.prepare(slots, top);
    for (const d of hit) {
      base[d.id] = scores[d.id]!;
      scores[d.id]! += d.server.lift;
    }
    return base;
  }

  /** Every indexed item, by name. */
  items(): SearchItem<T>[] {
    const all: SearchItem<T>[] = [];
    for (const docs of this.#servers.values()) all.push(...docs);
    return all.sort((a, b) => compareNames(a.name, b.name));
  }

  #add(it: SearchItem<T>): Doc<T> {
    const fields = toolFields(it.tool, it.serverId);
    const rows = new Map<string, number>();
    const lens: number[] = [];
    for (let f = 0; f < fields.length; f++) {
      const ts = fields[f]!;
      const shift = 2 * f;
      lens.push(ts.length);
      this.#totals[f]! += ts.length;
      for (const t of ts) {
        const row = rows.get(t) ?? 0;
        if (((row >> shift) & 3) < MAX_TF) rows.set(t, row + (1 << shift));
      }
    }
    const id = this.#free.pop() ?? this.#nextId++;
    const terms: string[] = [];
    const termRows: number[] = [];
    const doc: Doc<T> = {
      name: it.name,
      serverId: it.serverId,
      tool: it.tool,
      item: it.item,
      id,
      terms,
      rows: termRows,
      lens,
      // Set by setServer once the server's document is made.
      server: NO_PRIOR,
    };
    for (const [term, row] of rows) {
      terms.push(term);
      termRows.push(row);
      const posting = { doc, row, t: 0, gen: -1 };
      const list = this.#postings.get(term);
      if (list) list.push(posting);
      else this.#postings.set(term, [posting]);
    }
    this.#count++;
    return doc;
  }
}

/** BM25F: each field's frequency, length-normalised and weighted, summed before saturating. */
function weighted<T>(p: Posting<T>, avg: readonly number[]): number {
  let t = 0;
  for (let f = 0; f < FIELDS.length; f++) {
    const tf = (p.row >> (2 * f)) & 3;
    if (tf === 0) continue;
    const spec = FIELDS[f]!;
    t += (spec.weight * tf) / (1 - spec.b + (spec.b * p.doc.lens[f]!) / avg[f]!);
  }
  return t;
}

function same<T>(d: Doc<T>, it: SearchItem<T>): boolean {
  return d.tool === it.tool && d.name === it.name && d.serverId === it.serverId;
}

/** How many places each server holds. */
function places(rs: readonly { serverId: string }[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of rs) m.set(r.serverId, (m.get(r.serverId) ?? 0) + 1);
  return m;
}

/** Code-unit order, so the order is the same in every locale and process. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function byScore(a: { score: number; name: string }, b: { score: number; name: string }): number {
  return b.score - a.score || compareNames(a.name, b.name);
}
