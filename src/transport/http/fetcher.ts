/**
 * One HTTP request to the server: the pool (or the user's dispatcher), the credentials put on
 * it, the URL policy with its DNS pinning (`publicOnly` connects only to the addresses it vetted),
 * and the redirect rule. Everything above it speaks in requests and typed errors.
 */
import type { LookupFunction } from "node:net";
import type { Dispatcher } from "undici";
import { AddressPolicy, bareHost, systemResolver, vetHost } from "../../security/url-policy.js";
import { McpClientError } from "../../shared/errors.js";
import { revealIfSecret } from "../../shared/secret.js";
import { discard } from "./body.js";
import type { HttpCredentials } from "./credentials.js";
import { firstHeader, type Headers } from "./headers.js";
import { HTTP_DEFAULTS, type ResolvedHttpOptions } from "./options.js";
import type { PoolLease } from "./pool.js";
import { leasePool } from "./shared-pools.js";
import type { UndiciCore } from "./undici-core.js";

type CreateParser = typeof import("eventsource-parser").createParser;
export interface Deps {
  undici: UndiciCore;
  createParser: CreateParser;
}

let depsPromise: Promise<Deps> | undefined;

/** undici and eventsource-parser are loaded when an HTTP transport first starts, not at import. */
async function loadDeps(): Promise<Deps> {
  depsPromise ??= Promise.all([import("./undici-core.js"), import("eventsource-parser")]).then(([u, e]) => ({
    undici: u.loadUndiciCore(),
    createParser: e.createParser,
  }));
  try {
    return await depsPromise;
  } catch (err) {
    depsPromise = undefined;
    throw new McpClientError("transport", "http_dependencies_missing", undefined, { cause: err });
  }
}

/**
 * Network errors that mean the request never left: nothing was connected to. The server is gone
 * (or not back yet), so the transport is failed and the request may wait for the next connection.
 */
const NOT_CONNECTED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/**
 * The code of a failed request: undici's own, or `HTTP_PARSE_ERROR` for an answer its HTTP parser
 * refused without one (a status line that is not HTTP, a bad chunk size): the server was reached.
 */
export function failureCode(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string") return code;
  return (err as { name?: unknown } | null)?.name === "HTTPParserError" ? "HTTP_PARSE_ERROR" : null;
}

/** Thrown inside the transport when a request was aborted on purpose (cancel, close). */
export class Aborted extends Error {}

export type Method = "GET" | "POST" | "DELETE";

export class HttpFetcher {
  readonly #o: ResolvedHttpOptions;
  readonly #credentials: HttpCredentials;
  readonly #origin: string;
  readonly #path: string;
  #deps: Deps | undefined;
  /** What requests go through: the user's dispatcher, or the transport's lease of a pool. */
  #dispatcher: Pick<Dispatcher, "request"> | undefined;
  #pool: PoolLease | undefined;
  #policy: AddressPolicy | undefined;
  /** The addresses vetted per host, under `publicOnly` only. */
  #vetted: Map<string, string[]> | undefined;
  /** The dispatcher for the credential provider's requests to other origins. */
  #authAgent: Dispatcher | undefined;

  constructor(options: ResolvedHttpOptions, credentials: HttpCredentials) {
    this.#o = options;
    this.#credentials = credentials;
    this.#origin = sharedOrigin(options.url);
    this.#path = options.url.pathname + options.url.search;
  }

  /** The SSE parser factory, once started. */
  get createParser(): CreateParser {
    return this.#deps!.createParser;
  }

  /** Vets a URL's host under `publicOnly` (absent under `"any"`). */
  get vet(): ((url: URL) => Promise<void>) | undefined {
    return this.#policy ? (url) => this.#vet(url) : undefined;
  }

  /** Loads the libraries and leases a pool (or takes the user's dispatcher). */
  async start(): Promise<void> {
    const deps = await loadDeps();
    this.#deps = deps;
    const o = this.#o;
    if (o.serverUrlPolicy === "publicOnly") this.#policy ??= await AddressPolicy.create(o.allowPrivate);
    this.#vetted = this.#policy ? new Map() : undefined;
    if (o.dispatcher) {
      this.#dispatcher = o.dispatcher;
    } else {
      this.#pool = leasePool(deps.undici, o.url.origin, this.#connect(), o.poolSize);
      this.#dispatcher = this.#pool;
    }
  }

  /** Ends the lease (never the user's dispatcher; the last lease closes the pool's sockets) and the provider's agent. */
  async stop(): Promise<void> {
    const pool = this.#pool;
    this.#dispatcher = undefined;
    this.#pool = undefined;
    if (pool) await pool.destroy();
    const agent = this.#authAgent;
    this.#authAgent = undefined;
    if (agent) await agent.destroy().catch(() => {});
  }

  /** The provider's dispatcher: the user's own, or an agent with the pool's TLS and pinning. */
  authDispatcher(): Dispatcher {
    if (this.#o.dispatcher) return this.#o.dispatcher;
    if (!this.#authAgent) {
      if (!this.#dispatcher || !this.#deps) throw new McpClientError("transport", "not_connected");
      this.#authAgent = new this.#deps.undici.Agent({ connect: this.#connect() });
    }
    return this.#authAgent;
  }

  #connect(): Record<string, unknown> {
    const o = this.#o;
    const connect: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o.tls))
      connect[k] = k === "passphrase" ? revealIfSecret(v as string) : v;
    if (o.insecureSkipTlsVerify) connect.rejectUnauthorized = false;
    // Made only under publicOnly (a closure per transport otherwise unused: issue 26).
    if (this.#policy) connect.lookup = ((h, opts, cb) => this.#pinnedLookup(h, opts, cb)) as LookupFunction;
    return connect;
  }

  /**
   * One HTTP request with the credentials, the URL policy and the redirect rule applied. Rejects
   * with `Aborted` when `signal` fired, else with a typed `McpClientError`.
   */
  async request(
    method: Method,
    url: URL,
    headers: Record<string, string>,
    body: string | undefined,
    signal: AbortSignal,
  ): Promise<Dispatcher.ResponseData> {
    const dispatcher = this.#dispatcher;
    if (!dispatcher) throw new McpClientError("transport", "not_connected");
    let target = url;
    for (let hop = 0; ; hop++) {
      const asking = this.#credentials.apply(headers, target, method);
      if (asking) await asking;
      if (this.#policy) await this.#vet(target);
      if (signal.aborted) throw new Aborted();
      let res: Dispatcher.ResponseData;
      try {
        res = await dispatcher.request({
          origin: target === this.#o.url ? this.#origin : target.origin,
          path: target === this.#o.url ? this.#path : target.pathname + target.search,
          method,
          headers,
          body,
          signal,
          headersTimeout: 0,
          bodyTimeout: 0,
        });
      } catch (err) {
        if (signal.aborted) throw new Aborted();
        const code = failureCode(err);
        throw new McpClientError("transport", "network_error", {
          code,
          // Failed before a connection existed: not one byte of the request was written.
          ...(typeof code === "string" && NOT_CONNECTED.has(code) ? { sent: false } : {}),
        });
      }
      const status = res.statusCode;
      if (status < 300 || status >= 400) return res;
      discard(res.body);
      if (
        this.#o.redirect === "same-origin" &&
        (status === 307 || status === 308) &&
        hop < HTTP_DEFAULTS.maxRedirects
      ) {
        const next = sameOriginLocation(firstHeader((res.headers as Headers).location), target);
        if (next) {
          target = next;
          continue;
        }
      }
      throw new McpClientError("transport", "redirect_not_followed", { status });
    }
  }

  /** `request` bounded by `requestTimeout` (and `outer`, when it fires); a timeout rejects `timeout`. */
  async timed(
    method: Method,
    url: URL,
    headers: Record<string, string>,
    body: string | undefined,
    outer?: AbortSignal,
  ): Promise<Dispatcher.ResponseData> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.#o.requestTimeout);
    const onOuter = () => controller.abort();
    outer?.addEventListener("abort", onOuter, { once: true });
    try {
      return await this.request(method, url, headers, body, controller.signal);
    } catch (err) {
      if (err instanceof Aborted && timedOut) throw new McpClientError("timeout", "request_timeout");
      throw err;
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onOuter);
    }
  }

  async #vet(url: URL): Promise<void> {
    const addresses = await vetHost(url.hostname, this.#policy!, this.#o.resolver ?? systemResolver);
    this.#vetted?.set(bareHost(url.hostname).toLowerCase(), addresses);
  }

  /** The connector's DNS lookup under `publicOnly`: only addresses vetted for this host. */
  #pinnedLookup(...[hostname, options, callback]: Parameters<LookupFunction>): void {
    const addresses = this.#vetted?.get(bareHost(hostname).toLowerCase());
    const family = typeof options === "object" && options !== null ? options.family : undefined;
    const list = (addresses ?? [])
      // node:net on first use, not at import (loading it costs milliseconds).
      .map((address) => ({ address, family: process.getBuiltinModule("node:net").isIP(address) }))
      .filter((a) => a.family !== 0 && (family === undefined || family === 0 || a.family === family));
    if (list.length === 0) {
      const err = Object.assign(new Error("conduit-mcp: no vetted address for this host"), {
        code: "ENOTFOUND",
      });
      return (callback as (e: Error) => void)(err);
    }
    if (typeof options === "object" && options !== null && options.all) {
      return (callback as unknown as (e: null, list: Array<{ address: string; family: number }>) => void)(
        null,
        list,
      );
    }
    callback(null, list[0]!.address, list[0]!.family);
  }
}

/** A network error that happened before anything was connected to. */
export function notConnected(error: McpClientError): boolean {
  if (error.kind !== "transport" || error.reason !== "network_error") return false;
  const code = (error.data as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && NOT_CONNECTED.has(code);
}

function sameOriginLocation(location: string | undefined, base: URL): URL | undefined {
  if (!location) return undefined;
  let next: URL;
  try {
    next = new URL(location, base);
  } catch {
    return undefined;
  }
  if (next.protocol !== base.protocol || next.host !== base.host || next.username || next.password)
    return undefined;
  next.hash = "";
  return next;
}

/** Resolves after `ms`, or rejects with `Aborted` when `signal` fires first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Aborted());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Aborted());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Origins already seen, so that the transports of one server share the string (issue 26). */
const origins = new Map<string, string>();

function sharedOrigin(url: URL): string {
  const made = url.origin;
  const known = origins.get(made);
  if (known !== undefined) return known;
  // A bound on what a process that meets ever new servers keeps.
  if (origins.size >= 256) origins.clear();
  origins.set(made, made);
  return made;
}
