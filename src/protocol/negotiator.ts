import { HandshakeRestart, type Link, type NegotiatedSession, type Negotiator } from "../connection/types.js";
import { jsonRpcCode, McpClientError } from "../shared/errors.js";
import {
  type Implementation,
  isImplementation,
  isInitializeResult,
  isObject,
  isValidDiscoverResult,
  type JsonObject,
} from "../shared/guards.js";
import { ErrorCodes } from "../shared/jsonrpc.js";
import {
  isLegacyVersion,
  isModernVersion,
  LEGACY_VERSIONS,
  type LegacyVersion,
  META,
  MODERN_VERSIONS,
  type ModernVersion,
  OLDER_LEGACY_VERSIONS,
  type ProtocolChoice,
} from "../shared/versions.js";
import { EXITS_ON_PROBE, FROM_ERA_RECORD, probeFallbackReason } from "./fallback.js";
import { claimEra, dropEra, type KnownEras, readEra, sessionOf, writeEra } from "./known-era.js";
import { classifyProbe, mutualModern } from "./probe.js";

/** What a handshake settled, kept by the client for `status()`, `serverInfo()` and requests. */
export interface Session extends NegotiatedSession {
  serverInfo: Implementation | null;
  capabilities: JsonObject;
  instructions: string | null;
  /** Modern only: the versions the server listed. */
  supportedVersions: string[] | null;
  /** Legacy after trying modern: why (see fallback.ts); absent otherwise. */
  fallbackReason?: string;
}

export interface NegotiatorOptions {
  protocol: ProtocolChoice;
  prior: "legacy" | "modern" | undefined;
  probeTimeout: number;
  handshakeTimeout: number;
  clientInfo: Implementation;
  /** Capabilities declared in `initialize` (legacy). */
  legacyCapabilities: () => JsonObject;
  /** Capabilities sent in a modern request's `_meta`. */
  modernCapabilities: () => JsonObject;
  /** The era store shared with other clients (`stores.eras`): where a connect starts from. */
  eras?: KnownEras | undefined;
}

/**
 * Protocol negotiation: the probe, the fallback to `initialize`, and the rules that outlive one
 * connection (never downgrade once modern; `prior: "legacy"` skips one probe; a server that
 * exited mid-probe is met with `initialize` from then on).
 */
export class ProtocolNegotiator implements Negotiator<Session> {
  readonly #o: NegotiatorOptions;
  #everModern = false;
  #startWithInitialize: boolean;
  /**
   * The server exited on the probe once: every later attempt starts with `initialize`, since
   * probing again would only kill each new server (and spend a start of `maxReconnects`).
   */
  #exitsOnProbe = false;
  /** The last discover result's `ttlMs` (how long the era store may keep what it said). */
  #discoverTtl: number | undefined;
  /** The session came from the era store, unconfirmed: a request's legacy evidence re-probes. */
  #fromRecord = false;
  /** A request on the recorded era failed as "not this era": `renegotiate` probes afresh. */
  #recheck = false;

  constructor(options: NegotiatorOptions) {
    this.#o = options;
    this.#startWithInitialize = options.prior === "legacy";
  }

  async negotiate(link: Link): Promise<Session> {
    this.#fromRecord = false;
    this.#recheck = false;
    const eras = this.#o.eras;
    if (!eras) return this.#negotiate(link);
    const p = this.#o.protocol;
    let release: (() => void) | undefined;
    if ((p === "auto" || p === "modern") && !this.#exitsOnProbe) {
      let known = await readEra(eras);
      // One probe per fleet: another client negotiating with this server may be about to say.
      // A wait that ends with no record (the holder slower than the wait, a slow read) claims
      // again: a lock still held means wait more, a free one that this client should probe.
      // At most three rounds, and none begun after half the handshake's time (the probe keeps the rest).
      const until = Date.now() + this.#o.handshakeTimeout / 2;
      for (let round = 0; !known && round < 3 && (round === 0 || Date.now() < until); round++) {
        const lead = await claimEra(eras, Math.min(this.#o.handshakeTimeout, 5_000));
        if (lead) {
          // Checked again under the claim: a holder may have written its record and released
          // between this client's read and its claim (a second probe otherwise).
          known = await readEra(eras);
          if (known) lead();
          else release = lead;
          break;
        }
        known = await readEra(eras, 3);
      }
      if (known?.era === "modern" && (p === "modern" || !this.#startWithInitialize)) {
        // Another client negotiated it: the modern era needs no handshake (a version the server
        // no longer takes is answered with -32022, and renegotiated).
        this.#everModern = true;
        this.#fromRecord = true;
        return sessionOf(known);
      }
      if (known?.era === "legacy" && p === "auto") {
        try {
          return await this.#initialize(link, LEGACY_VERSIONS, false, FROM_ERA_RECORD);
        } catch (err) {
          if (jsonRpcCode(err) === undefined) throw err;
          // Refused: what the store said is out of date.
          dropEra(eras);
        }
      }
    }
    try {
      const session = await this.#negotiate(link);
      writeEra(eras, session, session.era === "modern" ? this.#discoverTtl : undefined);
      return session;
    } finally {
      release?.();
    }
  }

  async #negotiate(link: Link): Promise<Session> {
    const p = this.#o.protocol;
    if (isModernVersion(p)) return this.#discover(link, p);
    if (isLegacyVersion(p)) return this.#initialize(link, [p], true);
    if (p === "legacy") return this.#initialize(link, LEGACY_VERSIONS, false);
    if (p === "modern" || this.#everModern) return this.#probe(link, false);

    if (this.#startWithInitialize || this.#exitsOnProbe) {
      this.#startWithInitialize = false;
      try {
        return await this.#initialize(
          link,
          LEGACY_VERSIONS,
          false,
          this.#exitsOnProbe ? EXITS_ON_PROBE : undefined,
        );
      } catch (err) {
        // Refused: the server may be modern after all; probe on the same connection.
        if (jsonRpcCode(err) === undefined) throw err;
      }
    }
    return this.#probe(link, true);
  }

  eraMiss(error: unknown, transportKind: string): boolean {
    if (!this.#fromRecord) return false;
    // What the probe would read as a legacy server; on stdio only "method not found", since
    // there any error to a probe is legacy evidence but a request's own errors are not.
    const code = jsonRpcCode(error);
    const legacy = classifyProbe(transportKind, { error }).verdict === "legacy";
    this.#recheck = legacy && (transportKind === "http" || code === ErrorCodes.methodNotFound);
    return this.#recheck;
  }

  async renegotiate(link: Link, data: unknown): Promise<Session> {
    this.#fromRecord = false;
    if (this.#recheck && this.#o.eras) {
      // The record was out of date (the server changed era): drop it, probe, record the answer.
      this.#recheck = false;
      this.#everModern = false;
      dropEra(this.#o.eras);
      const session = await this.#probe(link, this.#o.protocol === "auto");
      writeEra(this.#o.eras, session, session.era === "modern" ? this.#discoverTtl : undefined);
      return session;
    }
    const version = mutualModern(isObject(data) ? data.supported : undefined);
    if (!version) throw new McpClientError("protocol", "unsupported_protocol_version");
    // The one re-discover the seed allows: another -32022 fails.
    const session = await this.#discover(link, version, false);
    if (this.#o.eras) writeEra(this.#o.eras, session, this.#discoverTtl);
    return session;
  }

  /**
   * `server/discover` judged by the probe table. `fallback`: legacy evidence leads to
   * `initialize` (auto), else it closes the connection (modern, or once modern).
   */
  async #probe(link: Link, fallback: boolean): Promise<Session> {
    link.setState("discovering");
    const timeout = fallback ? this.#o.probeTimeout : this.#o.handshakeTimeout;
    const outcome = await this.#send(link, MODERN_VERSIONS[0], timeout);
    const v = classifyProbe(link.transportKind, outcome);
    switch (v.verdict) {
      case "modern":
        return this.#modernSession(v.version, (outcome as { result: JsonObject }).result);
      case "rediscover":
        // The probe was the first discover: one more, and no third.
        return this.#discover(link, v.version, false);
      case "legacy":
        if (!fallback) throw new McpClientError("protocol", "legacy_server");
        return this.#initialize(link, LEGACY_VERSIONS, false, probeFallbackReason(outcome, timeout));
      case "reconnect":
        if (!fallback) throw errorOf(outcome);
        // The probe table's restart: a fresh transport that starts with initialize, as part of
        // this same attempt (no backoff; the connection counts the new server as a start).
        this.#exitsOnProbe = true;
        throw new HandshakeRestart(errorOf(outcome));
      case "retry":
      case "error":
        throw v.error;
    }
  }

  /** `server/discover` with one version; any failure closes the connection. */
  async #discover(link: Link, version: ModernVersion, again = true): Promise<Session> {
    link.setState("discovering");
    const outcome = await this.#send(link, version, this.#o.handshakeTimeout);
    if ("error" in outcome) {
      const code = jsonRpcCode(outcome.error);
      if (code === ErrorCodes.unsupportedProtocolVersion) {
        // -32022 naming this very version among the supported ones: ask once more with it (a
        // server that changed its mind, or answered before it was ready). Never another era.
        const data = ((outcome.error as McpClientError).data as { data?: unknown } | undefined)?.data;
        const supported = isObject(data) ? data.supported : undefined;
        if (again && Array.isArray(supported) && supported.includes(version)) {
          return this.#discover(link, version, false);
        }
        throw new McpClientError("protocol", "unsupported_protocol_version");
      }
      throw outcome.error;
    }
    if (!isValidDiscoverResult(outcome.result))
      throw new McpClientError("protocol", "invalid_discover_result");
    if (!(outcome.result.supportedVersions as string[]).includes(version)) {
      throw new McpClientError("protocol", "no_mutual_version");
    }
    return this.#modernSession(version, outcome.result);
  }

  async #send(
    link: Link,
    version: ModernVersion,
    timeout: number,
  ): Promise<{ result: JsonObject } | { error: unknown }> {
    try {
      const result = await link.request(
        "server/discover",
        {
          _meta: {
            [META.protocolVersion]: version,
            [META.clientInfo]: this.#o.clientInfo,
            [META.clientCapabilities]: this.#o.modernCapabilities(),
          },
        },
        timeout,
      );
      return { result };
    } catch (error) {
      return { error };
    }
  }

  #modernSession(version: ModernVersion, r: JsonObject): Session {
    this.#everModern = true;
    this.#discoverTtl = typeof r.ttlMs === "number" ? r.ttlMs : undefined;
    const meta = isObject(r._meta) ? r._meta : {};
    const info = meta[META.serverInfo];
    return {
      era: "modern",
      version,
      serverInfo: isImplementation(info) ? info : null,
      capabilities: r.capabilities as JsonObject,
      instructions: typeof r.instructions === "string" ? r.instructions : null,
      supportedVersions: r.supportedVersions as string[],
    };
  }

  /**
   * The legacy handshake: `initialize` with our newest acceptable version, then
   * `notifications/initialized`. `exact` pins the version the server must answer with; `fallback`
   * says why modern was given up, when it was tried.
   */
  async #initialize(
    link: Link,
    versions: readonly LegacyVersion[],
    exact: boolean,
    fallback?: string,
  ): Promise<Session> {
    link.setState("initializing");
    let result: JsonObject;
    try {
      result = await link.request(
        "initialize",
        {
          protocolVersion: versions[0],
          capabilities: this.#o.legacyCapabilities(),
          clientInfo: this.#o.clientInfo,
        },
        this.#o.handshakeTimeout,
      );
    } catch (err) {
      // A modern-only server may answer initialize with the versions it supports.
      if (
        !exact &&
        this.#o.protocol === "auto" &&
        jsonRpcCode(err) === ErrorCodes.unsupportedProtocolVersion
      ) {
        const data = ((err as McpClientError).data as { data?: unknown } | undefined)?.data;
        const version = mutualModern(isObject(data) ? data.supported : undefined);
        if (version) return this.#discover(link, version, false);
      }
      throw err;
    }
    if (!isInitializeResult(result)) throw new McpClientError("protocol", "invalid_initialize_result");
    const version = result.protocolVersion as string;
    // Pinned: that version exactly. Otherwise any legacy revision we can read, older ones too.
    const acceptable: readonly string[] = exact ? versions : [...versions, ...OLDER_LEGACY_VERSIONS];
    if (!acceptable.includes(version)) {
      throw new McpClientError("protocol", "unsupported_protocol_version");
    }
    link.notify("notifications/initialized");
    const session: Session = {
      era: "legacy",
      version,
      serverInfo: result.serverInfo as Implementation,
      capabilities: result.capabilities as JsonObject,
      instructions: typeof result.instructions === "string" ? result.instructions : null,
      supportedVersions: null,
    };
    if (fallback !== undefined) session.fallbackReason = fallback;
    return session;
  }
}

function errorOf(outcome: { result: JsonObject } | { error: unknown }): McpClientError {
  const e = "error" in outcome ? outcome.error : undefined;
  return e instanceof McpClientError
    ? e
    : new McpClientError("protocol", "handshake_failed", undefined, { cause: e });
}
