/** The hub's routes: public tool names to their servers, rebuilt from the servers' listings. */
import type { CallToolOptions, Tool } from "../client/types.js";
import { McpClientError } from "../shared/errors.js";
import { sanitizeText } from "../shared/sanitize.js";
import { sanitizeNamePart } from "../util/qualify.js";
import type { ServerSlot } from "./server-slot.js";
import { buildToolIndex, type Collision, type Route } from "./tool-index.js";

export interface RoutesDeps {
  /** The hub's servers, by id (the live map: servers come and go). */
  slots: Map<string, ServerSlot>;
  listTimeout: number;
  warn(text: string): void;
}

/**
 * Which server a public name goes to. Rebuilt from every server's last listing; a collision
 * (two servers' tools under one public name) leaves both out and is reported once.
 */
export class Routes {
  readonly #d: RoutesDeps;
  #routes = new Map<string, Route>();
  /** Collisions already reported (name and servers), so each is reported once. */
  readonly #reported = new Set<string>();
  /** The servers and listings the routes were last built from. */
  #from: ServerSlot[] = [];
  #lists: Array<readonly Tool[] | null> = [];

  constructor(deps: RoutesDeps) {
    this.#d = deps;
  }

  /** Every route, by public name. */
  get all(): ReadonlyMap<string, Route> {
    return this.#routes;
  }

  clear(): void {
    this.#routes = new Map();
    this.#from = [];
    this.#lists = [];
  }

  /** The route of a public name that needs no listing first (see `resolve`), else undefined. */
  ready(name: string): Route | undefined {
    const route = this.#routes.get(name);
    const slot = route && this.#d.slots.get(route.serverId);
    return slot && !slot.dirty && !slot.listing && !slot.uncached && !slot.down ? route : undefined;
  }

  /**
   * The route of a public name. A miss, or a hit on a server that changed since its last
   * listing (or whose list is private to credentials its client cannot name), lists again first:
   * only what the list would show can be called. A listing already in flight (the first, made by
   * a call or `listTools` just after `new Hub`, or a re-list after a change) is waited for too,
   * as if it were stale: its server's answer is not in the routes yet. Joining it asks nothing
   * more of the server (the client shares one refresh), and each call waits within its own
   * deadline and signal.
   */
  async resolve(name: string, opts: CallToolOptions): Promise<Route> {
    let route = this.#routes.get(name);
    const target = route ? this.#d.slots.get(route.serverId) : undefined;
    const pending = (s: ServerSlot) => s.dirty || s.listing;
    const stale = route
      ? !target || pending(target) || target.uncached
      : [...this.#d.slots.values()].some(pending);
    if (stale) {
      const slots = route && target ? [target] : [...this.#d.slots.values()].filter(pending);
      const timeout = Math.min(opts.timeout ?? this.#d.listTimeout, this.#d.listTimeout);
      await Promise.all(
        slots.map((s) =>
          s.list({ timeout, ...(opts.signal ? { signal: opts.signal } : {}), refresh: s.uncached }),
        ),
      );
      if (opts.signal?.aborted) throw opts.signal.reason;
      this.rebuild();
      route = this.#routes.get(name);
    }
    if (!route) throw this.#downOwnerOf(name)?.downError() ?? new McpClientError("not_found", "unknown_tool");
    const slot = this.#d.slots.get(route.serverId);
    if (!slot) throw new McpClientError("not_found", "unknown_tool");
    if (slot.down) throw slot.downError();
    return route;
  }

  /**
   * A server that is down and whose public names `name` has the form of (`mcp__<id>__...`): its
   * tools left the list, so a call of one says the server is down rather than that no tool has
   * the name. Sanitised ids are unique; of ids that are prefixes of one another, the longest.
   */
  #downOwnerOf(name: string): ServerSlot | undefined {
    let owner: ServerSlot | undefined;
    for (const slot of this.#d.slots.values()) {
      if (!slot.down) continue;
      const prefix = sanitizeNamePart(`mcp__${slot.id}__`);
      if (
        name.length > prefix.length &&
        name.startsWith(prefix) &&
        (!owner || slot.id.length > owner.id.length)
      ) {
        owner = slot;
      }
    }
    return owner;
  }

  /** Rebuilds the route map from every server's last listing, reporting new collisions. */
  rebuild(): void {
    const slots = [...this.#d.slots.values()];
    // The same servers with the same tools (a listing that asked nobody, or a server that
    // answered what it answered before: its client hands back the same tool objects): the same
    // routes, without naming 10 000 tools again.
    const lists = slots.map((s) => s.tools);
    const same = (i: number) => this.#from[i] === slots[i] && sameItems(this.#lists[i], lists[i]);
    if (slots.length === this.#from.length && slots.every((_, i) => same(i))) {
      this.#lists = lists;
      return;
    }
    this.#from = slots;
    this.#lists = lists;
    const { routes, collisions } = buildToolIndex(
      slots.map((s) => ({
        id: s.id,
        tools: s.tools,
        publicName: (n: string) => s.publicName(n),
      })),
    );
    this.#routes = routes;
    for (const c of collisions) this.#collision(c);
  }

  #collision(c: Collision): void {
    const key = `${c.name}\u0000${c.servers.join("\u0000")}`;
    if (this.#reported.has(key)) return;
    this.#reported.add(key);
    const servers = c.servers.map((s) => sanitizeText(s, { maxLength: 64 }));
    this.#d.warn(
      `tools of servers ${[...new Set(servers)].map((s) => JSON.stringify(s)).join(" and ")} share the name ${c.name}; neither is listed or callable`,
    );
    const slot = this.#d.slots.get(c.servers[0]!);
    slot?.telemetry.emit("hub:collision", () => ({ name: c.name, servers }));
  }
}

/** Whether two listings hold the same tool objects in the same order. */
function sameItems(a: readonly Tool[] | null | undefined, b: readonly Tool[] | null | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
