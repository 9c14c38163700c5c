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

interface ServerDoc {
  tf: Map<string, number>;
  len: number;
}

export class ServerPrior {
  readonly #docs = new Map<string, ServerDoc>();
  #totalLen = 0;

  /** Replaces a server's document with the terms of its tools. */
  setServer(serverId: string, tools: readonly TermRows[]): void {
    this.removeServer(serverId);
    const doc: ServerDoc = { tf: new Map(), len: 0 };
    for (const t of tools) {
      for (let i = 0; i < t.terms.length; i++) {
        const row = t.rows[i]!;
        let tf = 0;
        for (let bit = 0; bit < FIELD_BITS; bit += 2) tf += (row >> bit) & 3;
        if (tf === 0) continue;
        const term = t.terms[i]!;
        doc.tf.set(term, (doc.tf.get(term) ?? 0) + tf);
        doc.len += tf;
      }
    }
    this.#docs.set(serverId, doc);
    this.#totalLen += doc.len;
  }

  removeServer(serverId: string): void {
    const doc = this.#docs.get(serverId);
    if (!doc) return;
    this.#totalLen -= doc.len;
    this.#docs.delete(serverId);
  }

  /** Adds each hit's server prior to its score (`scores` indexed by the hit's id). */
  lift(
    slots: readonly ReadonlyMap<string, number>[],
    hits: readonly { id: number; serverId: string }[],
    scores: Float64Array,
  ): void {
    const prior = this.scores(slots);
    let top = 0;
    for (const d of hits) if (scores[d.id]! > top) top = scores[d.id]!;
    const weight = SERVER_WEIGHT * top;
    for (const d of hits) {
      const p = prior.get(d.serverId);
      if (p !== undefined) scores[d.id]! += weight * p * p;
    }
  }

  /**
   * Each matching server's BM25 score for the query's slots (the best term of each slot, as the
   * index scores tools), over the best server's: 1 for the best, absent for a server with none.
   */
  scores(slots: readonly ReadonlyMap<string, number>[]): Map<string, number> {
    const out = new Map<string, number>();
    const n = this.#docs.size;
    if (n === 0) return out;
    const avg = Math.max(this.#totalLen / n, 1);
    let max = 0;
    const best = new Map<string, number>();
    for (const slot of slots) {
      for (const [term, weight] of slot) {
        let df = 0;
        for (const d of this.#docs.values()) if (d.tf.has(term)) df++;
        if (df === 0) continue;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        for (const [id, d] of this.#docs) {
          const f = d.tf.get(term);
          if (f === undefined) continue;
          const s = (weight * idf * (f * (K1 + 1))) / (f + K1 * (1 - B + (B * d.len) / avg));
          if (s > (best.get(id) ?? 0)) best.set(id, s);
        }
      }
      for (const [id, s] of best) {
        const total = (out.get(id) ?? 0) + s;
        out.set(id, total);
        if (total > max) max = total;
      }
      best.clear();
    }
    if (max > 0) for (const [id, s] of out) out.set(id, s / max);
    return out;
  }
}
