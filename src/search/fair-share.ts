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
  const servers = new Set(ranked.map((r) => r.serverId)).size;
  const cap = Math.max(Math.min(2, limit), Math.ceil(limit / servers));
  const taken: R[] = [];
  const passed: R[] = [];
  const counts = new Map<string, number>();
  for (let i = 0; i < ranked.length && taken.length < limit; i++) {
    const r = ranked[i]!;
    const c = counts.get(r.serverId) ?? 0;
    if (c >= cap && competitorAfter(ranked, i, counts, cap)) {
      passed.push(r);
      continue;
    }
    counts.set(r.serverId, c + 1);
    taken.push(r);
  }
  // Only that server had good matches left: it fills the rest, in rank order.
  for (const r of passed) {
    if (taken.length === limit) break;
    taken.push(r);
  }
  return taken;
}

/** Whether a later match of a server under its cap scores close enough to `ranked[i]`. */
function competitorAfter<R extends { serverId: string; score: number }>(
  ranked: readonly R[],
  i: number,
  counts: ReadonlyMap<string, number>,
  cap: number,
): boolean {
  const floor = ranked[i]!.score * COMPETITIVE;
  for (let j = i + 1; j < ranked.length && ranked[j]!.score >= floor; j++) {
    const other = ranked[j]!;
    if (other.serverId !== ranked[i]!.serverId && (counts.get(other.serverId) ?? 0) < cap) return true;
  }
  return false;
}
