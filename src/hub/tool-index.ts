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
  // One pass, one map: a hub of 10 000 tools rebuilds this after every listing.
  const routes = new Map<string, Route>();
  const clashes = new Map<string, string[]>();
  for (const { id, tools, publicName } of lists) {
    if (!tools) continue;
    for (const tool of tools) {
      const name = publicName(tool.name);
      const clash = clashes.get(name);
      if (clash) {
        clash.push(id);
        continue;
      }
      const first = routes.get(name);
      if (first) {
        routes.delete(name);
        clashes.set(name, [first.serverId, id]);
      } else routes.set(name, { serverId: id, toolName: tool.name, tool });
    }
  }
  const collisions: Collision[] = [];
  for (const [name, servers] of clashes) collisions.push({ name, servers });
  return { routes, collisions };
}
