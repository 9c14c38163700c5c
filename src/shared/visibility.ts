/**
 * Governance visibility (docs/governance.md, "Hidden tools"): a layer of the call chain may say,
 * from a tool's definition alone, that it refuses every call of it. Such a tool is left out of the
 * lists, searches and model tool lists built on them; a call of it by name is still refused by
 * the layer itself. The mark is a property of the interceptor function, so the client and the hub
 * read it without importing the layer (governance) that sets it.
 */
import type { Tool } from "./tool.js";
import type { ToolCallInterceptor } from "./tool-call.js";

/** Whether the layer refuses every call of `tool` on `serverId` for `principal`, whatever the arguments. */
export type HidesTool = (serverId: string, tool: Tool, principal: string | null) => boolean;

const HIDES: unique symbol = Symbol.for("conduit-mcp.hides");

type Marked = ToolCallInterceptor & { [HIDES]?: HidesTool };

/** Marks `interceptor` as one that hides the tools `hides` says it always refuses. */
export function markHides(interceptor: ToolCallInterceptor, hides: HidesTool): ToolCallInterceptor {
  (interceptor as Marked)[HIDES] = hides;
  return interceptor;
}

/**
 * The test of a chain of `interceptors` for one server and principal, or null when no layer hides
 * anything (then nothing needs checking). Answers are kept per definition object: a cached
 * listing hands out the same objects, so a listing of thousands of tools costs a lookup each.
 */
export function hiddenTest(
  interceptors: readonly ToolCallInterceptor[],
  serverId: string,
  principal: string | null,
): ((tool: Tool) => boolean) | null {
  const tests = interceptors.map((i) => (i as Marked)[HIDES]).filter((h) => h !== undefined);
  if (tests.length === 0) return null;
  const seen = new WeakMap<Tool, boolean>();
  return (tool) => {
    let hidden = seen.get(tool);
    if (hidden === undefined) {
      hidden = tests.some((h) => h(serverId, tool, principal));
      seen.set(tool, hidden);
    }
    return hidden;
  };
}

/** Drops from `items` (in place) the ones `hidden` says of their tool; returns `items`. */
export function dropHidden<T extends { tool: Tool }>(items: T[], hidden: (item: T) => boolean): T[] {
  let kept = 0;
  for (const item of items) if (!hidden(item)) items[kept++] = item;
  items.length = kept;
  return items;
}
