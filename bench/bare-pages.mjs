// The listing both bare clients make (stdio and HTTP): every page of `tools/list`, following
// `nextCursor`, each request carrying the modern `_meta` when there is one.

/** `request(method, params)` is the client's own; `meta` its per-request `_meta` (or undefined). */
export async function listAllToolsVia(request, meta) {
  const tools = [];
  let cursor;
  do {
    const params = cursor === undefined ? {} : { cursor };
    if (meta) params._meta = meta;
    const page = await request("tools/list", params);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}
