import type { Tool } from "../client/types.js";

/** Where a public name goes: the server, and the tool's own name there. */
export interface Route {
  serverId: string;
  toolName: string;
  tool: Tool;
}

/** Two or more tools whose public names came out the same: none of them is listed or callable. */
export interface Collision {
  /** The public name they share (qualified names are safe text: `[A-Za-z0-9_-]`). */
  name: string;
  /** The ids of the servers whose tools collide (one id twice when one server has both). */
  servers: string[];
}

export interface ToolIndex {
  /** Public name to route, collided names left out. */
  routes: Map<string, Route>;
  collisions: Collision[];
}

/**
 * The reversible map from public names (`publicName`: `qualifyToolName` of the server's id) to
 * `(serverId, tool name)`, built from every server's
 * last listing, in server order. A name reached by two tools is in neither: which one was meant
 * is unknowable, and letting one shadow the other in silence is what this map exists to prevent.
 */
export function buildToolIndex(
  lists: Iterable<{ id: string; tools: readonly Tool[] | null; publicName: (toolName: string) => string }>,
): ToolIndex {
  const byName = new Map<string, Route[]>();
  for (const { id, tools, publicName } of lists) {
    if (!tools) continue;
    for (const tool of tools) {
      const name = publicName(tool.name);
      const routes = byName.get(name);
      const route = { serverId: id, toolName: tool.name, tool };
      if (routes) routes.push(route);
      else byName.set(name, [route]);
    }
  }
  const routes = new Map<string, Route>();
  const collisions: Collision[] = [];
  for (const [name, found] of byName) {
    if (found.length === 1) routes.set(name, found[0]!);
    else collisions.push({ name, servers: found.map((r) => r.serverId) });
  }
  return { routes, collisions };
}
