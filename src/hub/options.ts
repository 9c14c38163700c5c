import { type ClientOptions, checkInterceptors } from "../client/options.js";
import { resolveStores } from "../client/stores-option.js";
import { compileToolFilter } from "../client/tool-filter.js";
import type { Logger, Tool } from "../client/types.js";
import { type ResolvedGovernance, resolveGovernance } from "../governance/options.js";
import type { GovernanceOptions } from "../governance/types.js";
import type { ToolCallInterceptor } from "../shared/tool-call.js";
import type { Stores } from "../stores/index.js";
import { checkKeys, checkObject, fail, optInt, optString } from "../util/option-check.js";
import { sanitizeNamePart } from "../util/qualify.js";

/** A server's `Client` options in a hub: everything but what the hub sets itself. */
export type HubClientOptions = Omit<ClientOptions, "name" | "serverId" | "transport">;

/** One server behind the hub. */
export interface HubServerConfig {
  /** As the `Client`'s `transport` option: `{ type: "stdio", ... }`, `{ type: "http", url }`, or a `Transport`. */
  transport: ClientOptions["transport"];
  /** This server's `Client` options; they win over the hub's `clientOptions`. */
  client?: HubClientOptions;
  /** Only tools matching one of these names or `*` globs are listed and callable. */
  allow?: readonly string[];
  /** Tools matching one of these are never listed nor callable (deny wins over allow). */
  deny?: readonly string[];
  /** Only tools for which this returns `true` are listed and callable. */
  filter?: (tool: Tool) => boolean;
  /** This server's governance; it replaces the hub's `governance` for this server (docs/governance.md). */
  governance?: GovernanceOptions;
  /** Layers around this server's calls, inside the hub's and governance (docs/hub.md). */
  interceptors?: readonly ToolCallInterceptor[];
}

export interface HubOptions {
  /** The servers, by id (operator configuration: the id is the server part of qualified names). */
  servers: Readonly<Record<string, HubServerConfig>>;
  /** Defaults for every server's `Client`; a server's own `client` options win. */
  clientOptions?: HubClientOptions;
  /** Milliseconds each server gets to answer each listing. Default 10 000. */
  listTimeout?: number;
  /** Names the hub in events (`client`) and its clients' names (`<name>/<id>`). Default `"hub"`. */
  name?: string;
  /** The hub's own warnings (collisions, failed servers). Default: `clientOptions.logger`, else stderr. */
  logger?: Logger;
  /** Governance of every routed call, for all servers (rules may name them with `server`). Default: none. */
  governance?: GovernanceOptions;
  /**
   * Layers around every routed call, outermost (first = outermost), each call passing once
   * (docs/hub.md). They see the routed call: `serverId`, and the tool's name on that server.
   */
  interceptors?: readonly ToolCallInterceptor[];
  /**
   * How many stdio servers may be starting at once (spawned, not yet heard from); the others wait
   * before their process is spawned. Default 8.
   */
  startConcurrency?: number;
  /**
   * State shared with other hubs and workers (docs/fleet.md), passed to every server's client
   * (a server's own `client.stores` wins); `grants` is where governance keeps its grants unless
   * it names its own. Default: in memory.
   */
  stores?: Stores;
}

export const HUB_DEFAULTS = { listTimeout: 10_000, name: "hub", startConcurrency: 8 } as const;

const HUB_KEYS = [
  "servers",
  "clientOptions",
  "listTimeout",
  "name",
  "logger",
  "governance",
  "interceptors",
  "startConcurrency",
  "stores",
] as const;
const SERVER_KEYS = ["transport", "client", "allow", "deny", "filter", "governance", "interceptors"] as const;
/** What the hub sets on each client itself. */
const OWNED_CLIENT_KEYS = ["name", "serverId", "transport"] as const;
/** A bound for hostile configuration; ids over 57 characters already make every name a hashed one. */
export const MAX_SERVER_ID = 256;

export interface ResolvedHubOptions {
  servers: Array<[string, HubServerConfig]>;
  clientOptions: HubClientOptions;
  listTimeout: number;
  name: string;
  logger: Logger | undefined;
  governance: ResolvedGovernance | null;
  interceptors: readonly ToolCallInterceptor[];
  startConcurrency: number;
  stores: Stores;
}

/** Validates the hub's options (a `TypeError` naming the first bad one). No I/O. */
export function resolveHubOptions(input: unknown): ResolvedHubOptions {
  const o = checkObject(input, "options");
  checkKeys(o, HUB_KEYS, "");
  const servers = checkObject(o.servers, "servers");
  const stores = resolveStores(o.stores, "stores");
  const own = checkClientOptions(o.clientOptions, "clientOptions");
  const clientOptions = o.stores === undefined ? own : { stores, ...own };
  const name = optString(o.name, "name") ?? HUB_DEFAULTS.name;
  if (name.length === 0) fail("name", "a non-empty string");
  // Loggers are often class instances: only `warn` matters.
  if (o.logger !== undefined && typeof (o.logger as Logger | null)?.warn !== "function") {
    fail("logger", "an object with a warn(message) method");
  }
  const entries = Object.entries(servers);
  const ids: string[] = [];
  for (const [id, config] of entries) {
    checkServerId(id, ids);
    checkServerConfig(config, id);
    ids.push(id);
  }
  return {
    servers: entries as Array<[string, HubServerConfig]>,
    clientOptions,
    listTimeout: optInt(o.listTimeout, "listTimeout", 1) ?? HUB_DEFAULTS.listTimeout,
    name,
    logger: o.logger as Logger | undefined,
    governance:
      o.governance === undefined
        ? null
        : resolveGovernance(withGrants(o.governance as GovernanceOptions, stores), "governance"),
    interceptors: checkInterceptors(o.interceptors, "interceptors"),
    startConcurrency: optInt(o.startConcurrency, "startConcurrency", 1) ?? HUB_DEFAULTS.startConcurrency,
    stores,
  };
}

/** Governance options with the shared grant store, unless they name their own. */
export function withGrants(g: GovernanceOptions, stores: Stores): GovernanceOptions {
  return stores.grants && g.grants === undefined ? { ...g, grants: stores.grants } : g;
}

/**
 * Server ids are operator configuration, but still checked: an empty one, a longer one than
 * `MAX_SERVER_ID`, or one that sanitises to another's (`"my.fs"` and `"my_fs"`: their tools would
 * get the same qualified names) is refused with a `TypeError` naming both.
 */
export function checkServerId(id: unknown, existing: readonly string[]): void {
  const shown = typeof id === "string" ? asWritten(id) : JSON.stringify(String(id));
  if (typeof id !== "string" || id.length === 0) {
    throw new TypeError("conduit-mcp: a server id must be a non-empty string");
  }
  // As an own key it works in a plain object, but writing it into one would set the prototype.
  if (id === "__proto__") throw new TypeError('conduit-mcp: "__proto__" cannot be a server id');
  if (id.length > MAX_SERVER_ID) {
    throw new TypeError(`conduit-mcp: server id ${shown} is longer than ${MAX_SERVER_ID} characters`);
  }
  const clean = sanitizeNamePart(id);
  for (const other of existing) {
    if (sanitizeNamePart(other) === clean) {
      const them =
        other === id
          ? `${shown} is given twice`
          : `${asWritten(other)} and ${shown} are both ${asWritten(clean)} in qualified names (they differ only by characters that qualified names replace)`;
      throw new TypeError(`conduit-mcp: server ids collide: ${them}`);
    }
  }
}

// What a terminal would hide or act on: controls, invisible and bidi characters, line separators.
const UNSHOWN = /[\p{Cc}\p{Default_Ignorable_Code_Point}\p{Bidi_Control}\u2028\u2029]/gu;

/**
 * An id as the operator wrote it, quoted: the characters it is made of, with the ones a terminal
 * would hide or act on escaped (`\u200b`), so two ids that look alike are told apart. Clamped.
 */
function asWritten(id: string): string {
  const clipped = id.length > 60 ? `${id.slice(0, 59)}…` : id;
  return JSON.stringify(clipped).replace(UNSHOWN, (c) => {
    const hex = c.codePointAt(0)!.toString(16).padStart(4, "0");
    return hex.length > 4 ? `\\u{${hex}}` : `\\u${hex}`;
  });
}

export function checkServerConfig(config: unknown, id: string): asserts config is HubServerConfig {
  const path = `servers.${sanitizeNamePart(id)}`;
  const c = checkObject(config, path);
  checkKeys(c, SERVER_KEYS, path);
  if (c.transport === undefined) fail(`${path}.transport`, "given");
  checkClientOptions(c.client, `${path}.client`);
  if (c.governance !== undefined) resolveGovernance(c.governance, `${path}.governance`);
  checkInterceptors(c.interceptors, `${path}.interceptors`);
  compileToolFilter(c, path);
}

function checkClientOptions(v: unknown, path: string): HubClientOptions {
  if (v === undefined) return {};
  const c = checkObject(v, path);
  for (const key of OWNED_CLIENT_KEYS) {
    if (key in c) throw new TypeError(`conduit-mcp: option "${path}.${key}" is set by the hub`);
  }
  return c as HubClientOptions;
}
