/**
 * No one server fills the top of a search unless it is the only one that matched well: with
 * several servers matching, each takes at most its share of the `limit` (the limit over the number
 * of servers, rounded up, and never less than two) while another server still has a competitive
 * match to offer (one scoring at least `COMPETITIVE` of the match it would displace). Places left
 * over go back to the best remaining matches. Descriptions are untrusted, and a server that games
 * the ranking can then at worst crowd its own share; a weak stray match elsewhere does not push
 * out a server's good ones.
 */
export const COMPETITIVE = 0.5;

export function fairShare<R extends { serverId: string; score: number }>(
  ranked: readonly R[],
  limit: number,
): R[] {
  if (ranked.length <= limit) return ranked.slice();
  const cap = shareOf(ranked, limit);
  const taken: R[] = [];
  const passed: R[] = [];
  const counts = new Map<string, number>();
  const ahead = new Competitors(ranked, counts, cap);
  for (let i = 0; i < ranked.length && taken.length < limit; i++) {
    const r = ranked[i]!;
    ahead.moveTo(i);
    const c = counts.get(r.serverId) ?? 0;
    // The server is at its cap, so it is not among the open ones: any open one competes.
    if (c >= cap && ahead.open > 0) {
      passed.push(r);
      continue;
    }
    counts.set(r.serverId, c + 1);
    if (c + 1 === cap) ahead.capped(r.serverId);
    taken.push(r);
  }
  // Only that server had good matches left: it fills the rest, in rank order.
  for (const r of passed) {
    if (taken.length === limit) break;
    taken.push(r);
  }
  return taken;
}

/** How many of the top `limit` one server may take while another has a competitive match. */
export function shareOf(ranked: readonly { serverId: string }[], limit: number): number {
  const servers = new Set(ranked.map((r) => r.serverId)).size;
  return Math.max(Math.min(2, limit), Math.ceil(limit / servers));
}

/**
 * The matches after position `i` that score at least `COMPETITIVE` of `ranked[i]`'s (a window
 * that only slides forward: scores fall, so its end never moves back), and how many servers
 * under their cap have one there (`open`). One pass over the ranking in all, where a scan
 * forward from each position was quadratic in the number of matches.
 */
class Competitors<R extends { serverId: string; score: number }> {
  /** How many of each server's matches are in the window. */
  readonly #inWindow = new Map<string, number>();
  /** The window is ranked[#start .. #end). */
  #start = 0;
  #end = 0;
  open = 0;

  constructor(
    readonly ranked: readonly R[],
    readonly counts: ReadonlyMap<string, number>,
    readonly cap: number,
  ) {}

  moveTo(i: number): void {
    while (this.#start <= i) {
      if (this.#start < this.#end) this.#leave(this.ranked[this.#start]!.serverId);
      this.#start++;
    }
    if (this.#end < this.#start) this.#end = this.#start;
    const floor = this.ranked[i]!.score * COMPETITIVE;
    while (this.#end < this.ranked.length && this.ranked[this.#end]!.score >= floor) {
      this.#enter(this.ranked[this.#end]!.serverId);
      this.#end++;
    }
  }

  /** `serverId` just reached its cap: its matches in the window compete no more. */
  capped(serverId: string): void {
    if ((this.#inWindow.get(serverId) ?? 0) > 0) this.open--;
  }

  #enter(serverId: string): void {
    const n = (this.#inWindow.get(serverId) ?? 0) + 1;
    this.#inWindow.set(serverId, n);
    if (n === 1 && this.#under(serverId)) this.open++;
  }

  #leave(serverId: string): void {
    const n = this.#inWindow.get(serverId)! - 1;
    this.#inWindow.set(serverId, n);
    if (n === 0 && this.#under(serverId)) this.open--;
  }

  #under(serverId: string): boolean {
    return (this.counts.get(serverId) ?? 0) < this.cap;
  }
}
