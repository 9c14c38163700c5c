/**
 * The `handler` option and the options of answering server input (sampling, elicitation, roots,
 * notifications and logs): their types, defaults and validation. Validation throws a `TypeError`
 * naming the option's full path, before any I/O.
 */

import type { JsonObject } from "../../shared/guards.js";
import type { RequestId } from "../../shared/jsonrpc.js";
import type { Era } from "../../shared/versions.js";
import {
  checkKeys,
  checkObject,
  fail,
  isPlainObject,
  optBoolean,
  optFunction,
  optInt,
  optString,
} from "../../util/option-check.js";

export type ElicitationMode = "form" | "url";

/** What every callback of the handler knows about the request it answers. */
export interface InputContext {
  /** The client's `name`. */
  client: string;
  /** The operator-assigned id of the asking server. */
  serverId: string;
  era: Era;
  /** The related call's `assigns` request option, else the client's `assigns`. */
  assigns: Record<string, unknown>;
  /** The request in flight this input belongs to (legacy), or null. Always null in modern. */
  relatedRequestId: RequestId | null;
  /** Modern: this input request's key in the server's `inputRequests` (a gateway asks its own host under it). Absent in legacy. */
  key?: string;
  /**
   * Aborts when the answer is no longer wanted: the server cancelled the request (legacy), the
   * callback's `handlerTimeout` passed, the call's deadline passed or its signal fired (modern),
   * or the connection was lost.
   */
  signal: AbortSignal;
  /** Elicitation only. */
  mode?: ElicitationMode;
  /** Form elicitation: each field of the schema, flagged when it looks like it asks for a secret. */
  fields?: Record<string, { sensitiveSuspected: boolean }>;
  /** URL elicitation: the URL as the server sent it (checked: absolute `https`, no userinfo). Never opened by the client. */
  url?: string;
  /** URL elicitation: the URL's host name, to show the user. */
  host?: string;
  /** URL elicitation: true when a label of the host is punycode (`xn--`). */
  idn?: boolean;
  /** URL elicitation: true unless the URL has the server's origin; always true when that origin is unknown. */
  originMismatch?: boolean;
}

/** What `notification` and `log` callbacks know. */
export interface NotificationContext {
  client: string;
  serverId: string;
  era: Era | null;
}

/** A callback's refusal: sent to a legacy server as this JSON-RPC error; fails a modern call. */
export interface InputRefusal {
  error: { code: number; message: string; data?: unknown };
}

type Awaitable<T> = T | Promise<T>;

/**
 * Answers server input. Every callback is optional and may be async; the client advertises only
 * the capabilities whose callbacks exist. Results are shaped like the spec's result types.
 */
export interface InputHandler {
  /** `sampling/createMessage`: a `CreateMessageResult` (`role`, `content`, `model`, `stopReason`). */
  sampling?(params: JsonObject, ctx: InputContext): Awaitable<JsonObject | InputRefusal>;
  /** `elicitation/create`: an `ElicitResult` (`{ action, content? }`). Declining is a result. */
  elicitation?(params: JsonObject, ctx: InputContext): Awaitable<JsonObject | InputRefusal>;
  /** The elicitation modes offered. Default `["form"]`. */
  elicitationModes?: readonly ElicitationMode[];
  /** `roots/list`: a `ListRootsResult` (`{ roots: [{ uri, name? }] }`). */
  listRoots?(ctx: InputContext): Awaitable<JsonObject | InputRefusal>;
  /** Every server notification but progress, cancellations and log messages, one at a time. */
  notification?(method: string, params: JsonObject, ctx: NotificationContext): Awaitable<void>;
  /** `notifications/message` (server logs): `params` carries only `level`, `logger` and `data`, sanitised. */
  log?(level: string, params: JsonObject, ctx: NotificationContext): Awaitable<void>;
}

/** The client options of this part; `ClientOptions` extends it. */
export interface InputOptions {
  /** Answers server input: sampling, elicitation, roots, notifications and logs. Default: none. */
  handler?: InputHandler;
  /** `ctx.assigns` for input requests of calls made without the `assigns` request option. Default `{}`. */
  assigns?: Record<string, unknown>;
  /** Milliseconds each callback may take. Default `{ sampling: 60_000, elicitation: 300_000, roots: 60_000 }`. */
  handlerTimeout?: { sampling?: number; elicitation?: number; roots?: number };
  /** Legacy server requests answered at once; one more is answered `-32000` (busy). Default 8. */
  maxServerRequests?: number;
  /** The input request budget for this server (a token bucket). Default `{ perSecond: 10, burst: 20 }`. */
  inputRateLimit?: { perSecond?: number; burst?: number };
  sampling?: {
    /** `maxTokens` is clamped to this. Default 4 096. */
    maxTokens?: number;
    /** Declare `sampling.context` and pass `includeContext` through. Default false: coerced to `"none"`. */
    context?: boolean;
    /** Declare `sampling.tools` and accept `tools` / `toolChoice`. Default false: refused. */
    tools?: boolean;
    /** Answer legacy sampling with no call in flight. Default false: refused. */
    allowIdle?: boolean;
    /** The JSON-RPC code of a refused sampling request (idle, over budget). Default -1. */
    rejectionCode?: number;
  };
  elicitation?: {
    /** The server's origin (`https://host[:port]`) for `originMismatch`, when the transport reports none. */
    origin?: string;
  };
  roots?: {
    /** Declare `roots.listChanged` to legacy servers. Default true. */
    listChanged?: boolean;
  };
}

export interface ResolvedInputOptions {
  handler: InputHandler;
  elicitationModes: readonly ElicitationMode[];
  assigns: Record<string, unknown>;
  handlerTimeout: { sampling: number; elicitation: number; roots: number };
  maxServerRequests: number;
  inputRateLimit: { perSecond: number; burst: number };
  sampling: {
    maxTokens: number;
    context: boolean;
    tools: boolean;
    allowIdle: boolean;
    rejectionCode: number;
  };
  /** The origin URL elicitations are compared with, or null when unknown. */
  origin: string | null;
  roots: { listChanged: boolean };
}

export const INPUT_DEFAULTS = {
  handlerTimeout: { sampling: 60_000, elicitation: 300_000, roots: 60_000 },
  maxServerRequests: 8,
  inputRateLimit: { perSecond: 10, burst: 20 },
  sampling: { maxTokens: 4096, context: false, tools: false, allowIdle: false, rejectionCode: -1 },
} as const;

export const INPUT_OPTION_KEYS = [
  "handler",
  "assigns",
  "handlerTimeout",
  "maxServerRequests",
  "inputRateLimit",
  "sampling",
  "elicitation",
  "roots",
] as const;

const HANDLER_KEYS = ["sampling", "elicitation", "elicitationModes", "listRoots", "notification", "log"];

/**
 * Validates the input options of `o` (the whole client options object, its transport already
 * checked). The origin URL elicitations are compared with is `elicitation.origin`, else the
 * origin of an HTTP transport's `url`, else unknown.
 */
// What a client given none of these options resolves to, one object for every such client (they
// are read, never written: ~0.5 KB per client, issue 26).
const NO_ASSIGNS: Record<string, unknown> = Object.freeze({});
const NO_HANDLER: InputHandler = Object.freeze({});
const FORM_ONLY: readonly ElicitationMode[] = Object.freeze(["form"]);
const DEFAULT_HANDLER_TIMEOUT = Object.freeze({ ...INPUT_DEFAULTS.handlerTimeout });
const DEFAULT_INPUT_RATE = Object.freeze({ ...INPUT_DEFAULTS.inputRateLimit });
const DEFAULT_SAMPLING = Object.freeze({ ...INPUT_DEFAULTS.sampling });
const DEFAULT_ROOTS = Object.freeze({ listChanged: true });

export function resolveInputOptions(o: Record<string, unknown>): ResolvedInputOptions {
  const transportOrigin = httpOrigin(o.transport);
  const handler = resolveHandler(o.handler);
  const modes = resolveModes(handler.elicitationModes);

  let assigns: Record<string, unknown> = NO_ASSIGNS;
  if (o.assigns !== undefined) {
    if (!isPlainObject(o.assigns)) fail("assigns", "a plain object");
    assigns = o.assigns;
  }

  const ht = optObject(o.handlerTimeout, "handlerTimeout", ["sampling", "elicitation", "roots"]);
  const rl = optObject(o.inputRateLimit, "inputRateLimit", ["perSecond", "burst"]);
  const s = optObject(o.sampling, "sampling", [
    "maxTokens",
    "context",
    "tools",
    "allowIdle",
    "rejectionCode",
  ]);
  const e = optObject(o.elicitation, "elicitation", ["origin"]);
  const r = optObject(o.roots, "roots", ["listChanged"]);

  let rejectionCode: number = INPUT_DEFAULTS.sampling.rejectionCode;
  if (s.rejectionCode !== undefined) {
    if (typeof s.rejectionCode !== "number" || !Number.isSafeInteger(s.rejectionCode)) {
      fail("sampling.rejectionCode", "an integer (a JSON-RPC error code)");
    }
    rejectionCode = s.rejectionCode;
  }

  let origin = transportOrigin;
  const givenOrigin = optString(e.origin, "elicitation.origin");
  if (givenOrigin !== undefined) origin = checkOrigin(givenOrigin);

  const D = INPUT_DEFAULTS;
  return {
    handler,
    elicitationModes: modes,
    assigns,
    handlerTimeout:
      o.handlerTimeout === undefined
        ? DEFAULT_HANDLER_TIMEOUT
        : {
            sampling: optInt(ht.sampling, "handlerTimeout.sampling", 1) ?? D.handlerTimeout.sampling,
            elicitation:
              optInt(ht.elicitation, "handlerTimeout.elicitation", 1) ?? D.handlerTimeout.elicitation,
            roots: optInt(ht.roots, "handlerTimeout.roots", 1) ?? D.handlerTimeout.roots,
          },
    maxServerRequests: optInt(o.maxServerRequests, "maxServerRequests", 1) ?? D.maxServerRequests,
    inputRateLimit:
      o.inputRateLimit === undefined
        ? DEFAULT_INPUT_RATE
        : {
            perSecond: optPositive(rl.perSecond, "inputRateLimit.perSecond") ?? D.inputRateLimit.perSecond,
            burst: optInt(rl.burst, "inputRateLimit.burst", 1) ?? D.inputRateLimit.burst,
          },
    sampling:
      o.sampling === undefined
        ? DEFAULT_SAMPLING
        : {
            maxTokens: optInt(s.maxTokens, "sampling.maxTokens", 1) ?? D.sampling.maxTokens,
            context: optBoolean(s.context, "sampling.context") ?? D.sampling.context,
            tools: optBoolean(s.tools, "sampling.tools") ?? D.sampling.tools,
            allowIdle: optBoolean(s.allowIdle, "sampling.allowIdle") ?? D.sampling.allowIdle,
            rejectionCode,
          },
    origin,
    roots:
      o.roots === undefined
        ? DEFAULT_ROOTS
        : { listChanged: optBoolean(r.listChanged, "roots.listChanged") ?? true },
  };
}

/** Checks the `assigns` request option. */
export function checkAssigns(v: unknown): void {
  if (v !== undefined && !isPlainObject(v)) fail("assigns", "a plain object");
}

function resolveHandler(v: unknown): InputHandler {
  if (v === undefined) return NO_HANDLER;
  // A class instance is fine here (methods on a prototype), unlike the plain-data options.
  if (typeof v !== "object" || v === null || Array.isArray(v)) fail("handler", "an object of callbacks");
  const h = v as Record<string, unknown>;
  for (const key of HANDLER_KEYS) {
    if (key !== "elicitationModes") optFunction(h[key], `handler.${key}`);
  }
  if (isPlainObject(v)) checkKeys(h, HANDLER_KEYS, "handler");
  return h as InputHandler;
}

function resolveModes(v: unknown): readonly ElicitationMode[] {
  if (v === undefined) return FORM_ONLY;
  const expected = 'a non-empty array of "form" and "url"';
  if (!Array.isArray(v) || v.length === 0) fail("handler.elicitationModes", expected);
  const out: ElicitationMode[] = [];
  for (const m of v) {
    if (m !== "form" && m !== "url") fail("handler.elicitationModes", expected);
    if (!out.includes(m)) out.push(m);
  }
  return out;
}

function optObject(v: unknown, path: string, keys: readonly string[]): Record<string, unknown> {
  if (v === undefined) return {};
  const obj = checkObject(v, path);
  checkKeys(obj, keys, path);
  return obj;
}

function optPositive(v: unknown, path: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) fail(path, "a positive number");
  return v;
}

/** The origin of an `{ type: "http", url }` transport, or null. */
/** The origins of the URLs clients were given, so that clients of one server share the string. */
const origins = new Map<string, string | null>();

function httpOrigin(t: unknown): string | null {
  if (!isPlainObject(t) || t.type !== "http" || typeof t.url !== "string") return null;
  let origin = origins.get(t.url);
  if (origin !== undefined) return origin;
  try {
    origin = new URL(t.url).origin;
  } catch {
    origin = null;
  }
  // A bound on what a process that meets ever new URLs keeps.
  if (origins.size >= 256) origins.clear();
  origins.set(t.url, origin);
  return origin;
}

function checkOrigin(s: string): string {
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    fail("elicitation.origin", 'an origin such as "https://mcp.example.com"');
  }
  if ((url.protocol !== "https:" && url.protocol !== "http:") || url.username || url.password) {
    fail("elicitation.origin", 'an origin such as "https://mcp.example.com"');
  }
  return url.origin;
}
