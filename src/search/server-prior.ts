/**
 * How well each server as a whole is about a query, added to its matched tools' scores. A query
 * is often about a domain before an action ("what did people say in the channel", "the notion
 * page"), and the server whose tools share that vocabulary is the likelier home of the answer even
 * when the best tool's own text lacks the words. This is cluster-based retrieval (Liu and Croft,
 * "Cluster-based retrieval using language models", SIGIR 2004; Kurland and Lee, SIGIR 2004) with a
 * server as the cluster: one document per server (the name, server, title and description terms
 * of all its tools, as the index clamped them), ranked by BM25 for the query's slots.
 *
 * Bounded like the rest: it only re-orders tools the query's own words matched, a server's prior
 * is its score over the best server's, squared (so a server close behind the best gets little),
 * and it adds at most `SERVER_WEIGHT` of the best tool's score. A server stuffing its texts gains
 * that fraction at most, and the fair share still bounds its place in the top.
 */

/** How much the best-matching server's prior (1) counts, as a share of the best tool's score. */
export const SERVER_WEIGHT = 0.4;
const K1 = 1.2;
const B = 0.75;
// The fields read, as in document.ts's FIELDS: name, server, title, description (2 bits each).
const FIELD_BITS = 8;

/** What the prior reads of an indexed tool: its terms and their field frequencies (2 bits a field). */
export interface TermRows {
  terms: readonly string[];
  rows: readonly number[];
}

/** A server's part in a query: set by `prepare`, read by the index for each of its tools. */
export interface PriorHandle {
  /** What each of the server's matched tools gains in the current query. */
  lift: number;
}

interface ServerDoc extends PriorHandle {
  len: number;
  /** The query's score so far, and the current slot's best term (scratch, zero between uses). */
  score: number;
  best: number;
}

/** A term's occurrence in one server's document. */
interface Posting {
  doc: ServerDoc;
  tf: number;
}

export class ServerPrior {
  /** A handle for a tool not yet given its server's (the same shape as a server's, for speed). */
  static none(): PriorHandle {
    const doc: ServerDoc = { len: 0, lift: 0, score: 0, best: 0 };
    return doc;
  }

  readonly #docs = new Map<string, ServerDoc>();
  readonly #postings = new Map<string, Posting[]>();
  #totalLen = 0;

  /** Replaces a server's document with the terms of its tools; its tools hold the handle. */
  setServer(serverId: string, tools: readonly TermRows[]): PriorHandle {
    this.removeServer(serverId);
    const doc: ServerDoc = { len: 0, lift: 0, score: 0, best: 0 };
    for (const t of tools) {
      for (let i = 0; i < t.terms.length; i++) {
        const row = t.rows[i]!;
        let f = 0;
        for (let bit = 0; bit < FIELD_BITS; bit += 2) f += (row >> bit) & 3;
        if (f === 0) continue;
        doc.len += f;
        // One server is added at a time: its posting, if any, is the list's last.
        const term = t.terms[i]!;
        const list = this.#postings.get(term);
        const last = list?.[list.length - 1];
        if (last?.doc === doc) last.tf += f;
        else if (list) list.push({ doc, tf: f });
        else this.#postings.set(term, [{ doc, tf: f }]);
      }
    }
    this.#docs.set(serverId, doc);
    this.#totalLen += doc.len;
    return doc;
  }

  removeServer(serverId: string): void {
    const doc = this.#docs.get(serverId);
    if (!doc) return;
    this.#totalLen -= doc.len;
    this.#docs.delete(serverId);
    for (const [term, list] of this.#postings) {
      const kept = list.filter((p) => p.doc !== doc);
      if (kept.length === 0) this.#postings.delete(term);
      else if (kept.length !== list.length) this.#postings.set(term, kept);
    }
  }

  /**
   * Sets each server's `lift` for a query whose best tool scored `top`: its BM25 score for the
   * query's slots (the best term of each slot, as the index scores tools) over the best server's,
   * squared, times `SERVER_WEIGHT` and `top`.
   */
  prepare(slots: readonly ReadonlyMap<string, number>[], top: number): void {
    const n = this.#docs.size;
    const avg = Math.max(this.#totalLen / Math.max(n, 1), 1);
    const touched = new Set<ServerDoc>();
    const slotBest: ServerDoc[] = [];
    let max = 0;
    for (const slot of slots) {
      for (const [term, weight] of slot) {
        const list = this.#postings.get(term);
        if (!list) continue;
        const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
        for (const { doc, tf } of list) {
          const s = (weight * idf * (tf * (K1 + 1))) / (tf + K1 * (1 - B + (B * doc.len) / avg));
          if (doc.best === 0) slotBest.push(doc);
          if (s > doc.best) doc.best = s;
        }
      }
      for (const doc of slotBest) {
        doc.score += doc.best;
        doc.best = 0;
        if (doc.score > max) max = doc.score;
        touched.add(doc);
      }
      slotBest.length = 0;
    }
    for (const doc of this.#docs.values()) doc.lift = 0;
    const weight = SERVER_WEIGHT * top;
    for (const doc of touched) {
      const p = doc.score / max;
      doc.lift = weight * p * p;
      doc.score = 0;
    }
  }
}
