/**
 * A routed call on its way to its server: THE place the hub makes a call object and runs it
 * through the server's chain (docs/hub.md, "Interceptors"). Outermost first:
 *
 *   hub `interceptors` -> governance (the server's own `governance`, else the hub's) ->
 *   `servers.<id>.interceptors` -> the server's `Client.callTool` (its own chain inside)
 *
 * Nothing else in the hub calls a server's tool.
 */
import type { Task } from "../client/tasks.js";
import type { CallToolOptions, ToolResult } from "../client/types.js";
import type { Governor } from "../governance/governor.js";
import { governedBy } from "../governance/interceptor.js";
import type { Tool } from "../shared/tool.js";
import {
  type CallTool,
  carryTask,
  composeInterceptors,
  handBack,
  type ToolCall,
  type ToolCallInterceptor,
  type ToolSource,
} from "../shared/tool-call.js";
import { hiddenTest } from "../shared/visibility.js";
import { asItIs, type InContext } from "../telemetry/open-telemetry.js";
import type { ServerSlot } from "./server-slot.js";
import type { Route } from "./tool-index.js";

/** One server's chain, composed once when the server is added, and its call defaults. */
export interface ServerChain {
  /** The server the chain ends at. */
  slot: ServerSlot;
  run: CallTool;
  /** The server's client's `principal` option, the default of a call's. */
  principal: string | undefined;
  /** The server's client's `requestTimeout`, the default of a call's. */
  timeout: number;
  /** No layers: the chain is the client's call as it is. */
  bare: boolean;
  /** Each route's `tools` of a call, made once (not per call: issue 26). */
  finders: WeakMap<Route, ToolSource>;
  /** Whether a layer (governance) refuses every call of a tool: the lists leave it out. Null: none does. */
  hidden: ((tool: Tool) => boolean) | null;
}

/** What a server's chain is made of, outermost first. */
export interface ChainParts {
  hub: readonly ToolCallInterceptor[];
  governor: Governor | null;
  server: readonly ToolCallInterceptor[];
  principal: string | null;
  timeout: number;
}

/** A hub call: a `ToolCall`, and the caller's tracing context its server's call starts in. */
interface HubCall extends ToolCall {
  inCaller?: InContext;
}

/** Composes a server's chain once: the layers of `parts` around the server's client. */
export function serverChain(slot: ServerSlot, parts: ChainParts): ServerChain {
  const principal = parts.principal ?? undefined;
  const core: CallTool = (call) => {
    const c = call as HubCall;
    const options = defaultsOnly(c, principal, parts.timeout) ? undefined : callOptions(c);
    const { name, arguments: args, inCaller } = c;
    // Started in the caller's context: it may come after awaits (policy, approval, retry pauses).
    const made =
      inCaller && inCaller !== asItIs
        ? inCaller(() => slot.client.callTool(name, args, options))
        : slot.client.callTool(name, args, options);
    return options?.task === "return" ? made.then(carryTask) : (made as Promise<ToolResult>);
  };
  const layers = [...parts.hub, ...(parts.governor ? [governedBy(parts.governor)] : []), ...parts.server];
  return {
    slot,
    run: composeInterceptors(layers, core),
    principal,
    timeout: parts.timeout,
    finders: new WeakMap(),
    bare: layers.length === 0,
    hidden: hiddenTest(layers, slot.id, parts.principal),
  };
}

/**
 * The definition the hub listed and routed by (listed again when its server said it changed).
 * A name an interceptor rewrote is judged by that tool's definition in the server's listing.
 */
function finder(chain: ServerChain, route: Route): ToolSource {
  const slot = chain.slot;
  // Frozen: every call of the route shares it, so no interceptor may change it for the next one.
  const tools: ToolSource = Object.freeze({
    find: async (name: string) =>
      name === route.toolName ? route.tool : slot.tools?.find((t) => t.name === name),
  });
  chain.finders.set(route, tools);
  return tools;
}

/** The fields of a call that are not the client's options. */
const CALL_FIELDS = new Set(["name", "arguments", "serverId", "tools", "events", "report", "inCaller"]);

/**
 * Whether a call's options are the client's own defaults (its principal and `requestTimeout`)
 * and nothing else: then the client is called with no options, which it neither copies nor
 * checks (0.7 µs of a 5 µs in-process call, issue 26), to the same effect.
 */
function defaultsOnly(call: HubCall, principal: string | undefined, timeout: number): boolean {
  // for-in, not Object.keys (no array per call): a key it sees that a copy would not (inherited)
  // only sends the call the long way, with its options as they are.
  for (const key in call) {
    if (CALL_FIELDS.has(key)) continue;
    if (key === "principal" ? call.principal !== principal : key !== "timeout" || call.timeout !== timeout) {
      return false;
    }
  }
  return true;
}

/** A call's options for its server's client: every field but the call's own. */
function callOptions(call: HubCall): CallToolOptions {
  const { name, arguments: args, serverId, tools, events, report, inCaller, ...options } = call;
  return options;
}

/** What is left of `timeout` ms begun at `start` (`Date.now()`), at least 1. */
export function deadline(timeout: number, start: number): number {
  return Math.max(1, timeout - (Date.now() - start));
}

/**
 * The call of a routed tool on its server: the call object every layer sees (the server's name
 * of the tool, the routed definition for governance, the server's events), run through the
 * server's chain. A task handed back leaves as itself.
 */
export function dispatch(
  chain: ServerChain,
  route: Route,
  args: Record<string, unknown> | undefined,
  options: CallToolOptions & { inCaller: InContext },
): Promise<ToolResult | Task> {
  const slot = chain.slot;
  // The call's own fields first, the caller's options after (they name none of them): begun as a
  // copy of the options, the object cost every layer and the client that read it 15 µs of CPU
  // per in-process routed call, against 7 this way (bench/scale.mjs).
  const call: HubCall = {
    name: route.toolName,
    arguments: args ?? {},
    serverId: slot.id,
    // The definition the hub listed and routed by (listed again when its server said it changed).
    // A name an interceptor rewrote is judged by that tool's definition in the server's listing.
    tools: chain.finders.get(route) ?? finder(chain, route),
    events: slot.telemetry,
    ...options,
    principal: options.principal ?? chain.principal,
    timeout: options.timeout ?? chain.timeout,
  };
  // Not async (one promise fewer per call, issue 26); an interceptor's throw is still a rejection.
  // In the caller's context (its spans belong to it); without OpenTelemetry, no closure for it.
  try {
    const inCaller = options.inCaller;
    const run = inCaller === asItIs ? chain.run(call) : inCaller(() => chain.run(call));
    // With no layers, only a `task: "return"` call can carry a task back: others skip a turn.
    return chain.bare && options.task !== "return" ? run : Promise.resolve(run).then(handBack<Task>);
  } catch (err) {
    return Promise.reject(err);
  }
}
