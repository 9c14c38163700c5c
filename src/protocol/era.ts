/**
 * How a request is shaped for the negotiated era, and the other questions whose answer is "it
 * depends on the era". The client asks these instead of testing `session.era` itself, so the
 * difference between the revisions lives in one place.
 *
 * - Modern (2026-07-28): every request carries `_meta` with the protocol version, the client's
 *   capabilities and info, and the log level; no server requests; `server/discover` checks health.
 * - Legacy (2025-11-25 and older): `_meta` only when the caller or a progress token needs it;
 *   `logging/setLevel`, server requests, `ping`, task-augmented calls declared in capabilities.
 */
import { type Implementation, isObject, type JsonObject } from "../shared/guards.js";
import { setOwn } from "../shared/keys.js";
import { callerMeta } from "../shared/meta.js";
import { META } from "../shared/versions.js";
import type { Session } from "./negotiator.js";

/** The modern tasks extension's identifier, in capabilities. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

export interface ShaperDeps {
  clientInfo: Implementation;
  /** The capabilities a modern request declares (the handler's, as configured). */
  modernCapabilities(): JsonObject;
}

/**
 * What a request adds to its `_meta` beyond the client's own: the caller's `meta`, the trace
 * context to propagate (already chosen: the caller's or the span's), and whether it declares the
 * tasks extension. A request object reads as one (requester.ts), so nothing is built per request.
 */
export interface CallerMeta {
  readonly meta?: Readonly<Record<string, unknown>> | undefined;
  readonly traceparent?: string | undefined;
  readonly withTasks?: boolean | undefined;
}

const NO_CALLER_META: CallerMeta = {};

/** Builds a request's params as the session's era wants them, `_meta` included. */
export class RequestShaper {
  readonly #d: ShaperDeps;
  /** The least severe log level wanted; modern sends it in every request's `_meta`. */
  logLevel: string | undefined;
  #tasksFor: JsonObject | undefined;
  #tasksCaps: JsonObject | undefined;
  /** The shared modern `_meta` of a plain request [0] and of one declaring tasks [1]. */
  /**
   * The shared envelopes, without and with the tasks extension; each is its own record of the
   * version, capabilities and level it was made for (an array of records was ~110 B more, issue 26).
   */
  #plainEnvelope: JsonObject | undefined;
  #tasksEnvelope: JsonObject | undefined;

  constructor(deps: ShaperDeps) {
    this.#d = deps;
  }

  /**
   * A copy of `params` with `_meta` as the era wants it (the caller's object is never changed):
   * the caller's `meta` (reserved keys dropped), the trace context to propagate (modern; already
   * chosen, the caller's or the span's), the progress token, and (modern) the capabilities, with
   * the tasks extension declared when `withTasks`.
   */
  params(
    params: JsonObject | undefined,
    session: Session,
    progressToken: number | undefined,
    caller: CallerMeta = NO_CALLER_META,
  ): JsonObject {
    const p = copyOf(params);
    const { meta, traceparent, withTasks } = caller;
    if (session.era === "modern") {
      const caps = withTasks ? this.#tasksCapabilities() : this.#d.modernCapabilities();
      const custom =
        meta === undefined && traceparent === undefined ? undefined : callerMeta(meta, traceparent, true);
      if (custom === undefined) {
        // The common case: nothing of the caller's, so the envelope is the session's, shared.
        const envelope = this.#envelope(session.version, caps, withTasks === true);
        if (progressToken === undefined) p._meta = envelope;
        else {
          const m = copyOf(envelope);
          m.progressToken = progressToken;
          p._meta = m;
        }
      } else {
        this.#stamp(custom, session.version, caps);
        if (progressToken !== undefined) custom.progressToken = progressToken;
        p._meta = custom;
      }
    } else {
      let m = callerMeta(meta, undefined, false);
      if (progressToken !== undefined) {
        m ??= {};
        m.progressToken = progressToken;
      }
      if (m) p._meta = m;
    }
    return p;
  }

  /**
   * The modern `_meta` of a request with nothing of the caller's in it: the same keys in the same
   * order as a built one, made once per version, capabilities and log level and then shared by
   * every request (building it per request was a new hidden class each time, and a slow store per
   * key). Nothing writes to a request's `_meta` after it is built; the transports only read and
   * serialise it.
   */
  #envelope(version: string, caps: JsonObject, tasks: boolean): JsonObject {
    const level = this.logLevel;
    const cached = tasks ? this.#tasksEnvelope : this.#plainEnvelope;
    if (
      cached !== undefined &&
      cached[META.protocolVersion] === version &&
      cached[META.clientCapabilities] === caps &&
      cached[META.logLevel] === (level || undefined)
    ) {
      return cached;
    }
    const meta = this.#stamp({}, version, caps);
    if (tasks) this.#tasksEnvelope = meta;
    else this.#plainEnvelope = meta;
    return meta;
  }

  /** Adds the client's modern `_meta` keys to `m`, always in this order. */
  #stamp(m: JsonObject, version: string, caps: JsonObject): JsonObject {
    m[META.protocolVersion] = version;
    m[META.clientCapabilities] = caps;
    m[META.clientInfo] = this.#d.clientInfo;
    if (this.logLevel) m[META.logLevel] = this.logLevel;
    return m;
  }

  /** The modern capabilities with the tasks extension declared (built again only when they change). */
  #tasksCapabilities(): JsonObject {
    const caps = this.#d.modernCapabilities();
    if (this.#tasksFor !== caps || this.#tasksCaps === undefined) {
      const extensions = isObject(caps.extensions) ? caps.extensions : {};
      this.#tasksCaps = { ...caps, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
      this.#tasksFor = caps;
    }
    return this.#tasksCaps;
  }
}

/**
 * A shallow copy of `params` (own enumerable keys, `__proto__` kept as data, as a spread would),
 * into a new `{}`. Not `{ ...params }`: on Node 20 an object made by a spread gets a hidden class
 * outside any transition tree, so adding `_meta` to it made a new hidden class on every request
 * (about 1 µs, and a slow JSON.stringify after it); a copy into `{}` reuses one.
 */
function copyOf(params: JsonObject | undefined): JsonObject {
  if (!params) return {};
  // Object.assign has a fast path for plain objects, but it would set a `__proto__` key as the
  // prototype: such a key (never one the client makes) is copied as data, key by key.
  if (!Object.hasOwn(params, "__proto__")) return Object.assign({}, params);
  const p: JsonObject = {};
  for (const key of Object.keys(params)) setOwn(p, key, params[key]);
  return p;
}

/** The request that checks a server is alive: `server/discover` (modern) or `ping` (legacy). */
export function pingMethod(session: Session): string {
  return session.era === "modern" ? "server/discover" : "ping";
}

/** Legacy sets the log level with a request; modern keeps it and sends it in each request's `_meta`. */
export function logLevelIsRequest(session: Session | null): boolean {
  return session?.era === "legacy";
}

/** Only a legacy server sends requests (sampling, elicitation, roots); modern asks in results. */
export function takesServerRequests(session: Session | null): boolean {
  return session?.era === "legacy";
}

/** Roots changes are announced only to a legacy server (a modern one asks in each call's rounds). */
export function announcesRootsChanged(session: Session | null): boolean {
  return session?.era === "legacy";
}

/** Modern notifications pass the listen-stream router first (legacy ones come unasked). */
export function routesNotifications(session: Session | null): boolean {
  return session?.era === "modern";
}

/** Whether the session is legacy and the server declares `tasks.requests.tools.call`. */
export function legacyToolTasks(session: Session | null): boolean {
  if (session?.era !== "legacy") return false;
  const tasks = isObject(session.capabilities.tasks) ? session.capabilities.tasks : undefined;
  const requests = isObject(tasks?.requests) ? tasks.requests : undefined;
  const tools = isObject(requests?.tools) ? requests.tools : undefined;
  return tools !== undefined && "call" in tools;
}

/** Whether a modern session can be told to declare tasks on a call (the tool call path). */
export function modernTasks(session: Session | null): boolean {
  return session?.era === "modern";
}
