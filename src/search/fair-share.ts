/**
 * No one server fills the top of a search unless it is the only one that matched: with several
 * servers matching, each takes at most its share of the `limit` (the limit over the number of
 * servers, rounded up, and never less than two) while another server still has a match to offer; places left over go back to the best remaining matches. Descriptions are
 * untrusted, and a server that games the ranking can then at worst crowd its own share.
 */
export function fairShare<R extends { serverId: string }>(ranked: readonly R[], limit: number): R[] {
  if (ranked.length <= limit) return ranked.slice();
  const servers = new Set(ranked.map((r) => r.serverId)).size;
  const cap = Math.max(Math.min(2, limit), Math.ceil(limit / servers));
  const taken: R[] = [];
  const passed: R[] = [];
  const counts = new Map<string, number>();
  for (const r of ranked) {
    if (taken.length === limit) break;
    const c = counts.get(r.serverId) ?? 0;
    if (c >= cap) {
      passed.push(r);
      continue;
    }
    counts.set(r.serverId, c + 1);
    taken.push(r);
  }
  // Only that server had matches left: it fills the rest, in rank order.
  for (const r of passed) {
    if (taken.length === limit) break;
    taken.push(r);
  }
  return taken;
}
