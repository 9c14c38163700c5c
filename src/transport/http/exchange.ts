/**
 * One request on the wire: its POST, and the answer read to its end (a JSON body, or an event
 * stream carrying server requests, notifications and finally the response; a legacy stream that
 * ends early is resumed with `Last-Event-ID`). Statuses that ask for another try (a session to
 * renew, new credentials) send it again; the rest become typed errors.
 */
import type { Readable } from "node:stream";
import type { Dispatcher } from "undici";
import { jsonRpcCode, McpClientError } from "../../shared/errors.js";
import { answerError, errorOf, MODERN_ERROR_CODES } from "./answers.js";
import { DISCARD_MS, decoded, discard, discardOneWay, readCapped, readEvents } from "./body.js";
import { MAX_AUTH_RETRIES } from "./credentials.js";
import type { Exchange } from "./exchange-state.js";
import { Aborted, sleep } from "./fetcher.js";
import { contentType, type Headers, resumableEventId } from "./headers.js";
import { ACCEPT_POST, ACCEPT_SSE, type HttpHost } from "./host.js";

const MAX_RESUMES = 5;
/** How long a request stream may stay open after its response before it is dropped. */
const AFTER_RESPONSE_GRACE = 2_000;

/** Sends `ex` until it is answered, failed, or cancelled; never rejects. */
export async function runExchange(host: HttpHost, ex: Exchange): Promise<void> {
  try {
    for (;;) {
      const gate = ex.version === undefined && !ex.bypassGate ? host.session.gate : undefined;
      if (gate) await gate;
      if (ex.cancelled) return;
      const headers = requestHeaders(host, ex);
      const res = await host.fetcher.request(
        "POST",
        host.options.url,
        headers,
        ex.body,
        ex.controller.signal,
      );
      if (!(await answer(host, ex, res, headers))) return;
    }
  } catch (err) {
    host.fail(ex, err);
  }
}

function requestHeaders(host: HttpHost, ex: Exchange): Record<string, string> {
  const h = host.baseHeaders();
  if (ex.version !== undefined) {
    host.annotations.addTo(h, ex.version, ex.method, ex.message.params);
    return h;
  }
  if (ex.method !== "initialize") {
    const sid = host.session.addTo(h);
    if (sid) ex.sentSession = sid;
  }
  return h;
}

/**
 * Handles the answer to a request's POST. Resolves `true` when the request must be sent again
 * (after a session renewal or new credentials).
 */
async function answer(
  host: HttpHost,
  ex: Exchange,
  res: Dispatcher.ResponseData,
  sentHeaders: object,
): Promise<boolean> {
  const status = res.statusCode;
  const headers = res.headers as Headers;
  const creds = host.credentials;
  if ((status === 401 || status === 403) && creds.hasProvider && ex.authRetries < MAX_AUTH_RETRIES) {
    discard(res.body);
    if (await creds.challenged(status, headers, creds.sentWith(sentHeaders))) {
      ex.authRetries += 1;
      return true;
    }
    throw answerError(status, headers, undefined);
  }
  if (status >= 200 && status < 300) {
    if (ex.method === "initialize" && ex.version === undefined) host.session.capture(headers, res.body);
    const type = contentType(headers);
    if (type === "text/event-stream") {
      await consumeRequestStream(host, ex, res.body, headers);
      return false;
    }
    if (type === "application/json" || type.endsWith("+json")) {
      const text = (await readCapped(res.body, headers, host.options.maxMessageBytes)).toString("utf8");
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new McpClientError("protocol", "invalid_json_body");
      }
      const list = Array.isArray(parsed) ? parsed : [parsed];
      for (const m of list) host.incoming(m, text, ex.gen, ex);
      if (!ex.done) throw new McpClientError("transport", "no_response");
      return false;
    }
    discard(res.body);
    // 202 is the answer to a notification or a response (both eras); a request must get JSON or
    // an event stream, so a server that accepts one without an answer broke the protocol.
    if (status === 202 || status === 204) {
      throw new McpClientError("protocol", "accepted_without_response", { status });
    }
    throw new McpClientError("transport", "unexpected_content_type", { status });
  }

  if (status === 404 && ex.sentSession && ex.version === undefined && host.session.active) {
    discard(res.body);
    if (ex.sessionRetried) throw new McpClientError("session_expired", "session_expired", { status });
    ex.sessionRetried = true;
    await host.session.renew(ex.sentSession);
    return true;
  }

  const error = await errorOf(res, host.options.maxMessageBytes);
  const code = jsonRpcCode(error);
  if (
    ex.method === "initialize" &&
    ex.version === undefined &&
    ex.onResponse === undefined &&
    host.options.legacySse === "auto" &&
    (status === 400 || status === 404 || status === 405) &&
    (code === undefined || !MODERN_ERROR_CODES.has(code))
  ) {
    // Maybe a 2024-11-05 HTTP+SSE server: GET the URL and look for its `endpoint` event.
    if (
      await host.sse.open(ex.gen).then(
        () => true,
        () => false,
      )
    ) {
      if (ex.cancelled) return false;
      await host.sse.postRequest(ex);
      return false;
    }
  }
  throw error;
}

/** Reads a request's event stream; resumes a legacy one that ended early after an event id. */
async function consumeRequestStream(host: HttpHost, ex: Exchange, body: Readable, headers: Headers) {
  let outcome = await readRequestStream(host, ex, body, headers);
  while (outcome === "early") {
    if (ex.version !== undefined || ex.lastEventId === undefined || ex.resumes >= MAX_RESUMES) {
      throw new McpClientError("transport", "stream_ended_without_response");
    }
    ex.resumes += 1;
    await sleep(host.session.resumeDelay(ex.retryMs ?? 100, 30_000), ex.controller.signal);
    const h = host.session.headers(ACCEPT_SSE);
    h["last-event-id"] = ex.lastEventId;
    const res = await host.fetcher.request("GET", host.options.url, h, undefined, ex.controller.signal);
    const rh = res.headers as Headers;
    if (res.statusCode !== 200 || contentType(rh) !== "text/event-stream") {
      throw await errorOf(res, host.options.maxMessageBytes);
    }
    outcome = await readRequestStream(host, ex, res.body, rh);
  }
}

async function readRequestStream(
  host: HttpHost,
  ex: Exchange,
  body: Readable,
  headers: Headers,
): Promise<"done" | "early"> {
  const stream = decoded(body, headers);
  const o = host.options;
  const long = ex.method === "subscriptions/listen";
  let grace: NodeJS.Timeout | undefined;
  let idle: NodeJS.Timeout | undefined;
  if (long) {
    idle = setTimeout(() => {
      ex.idleFired = true;
      stream.destroy();
    }, o.listenIdleTimeout);
  }
  try {
    await readEvents(stream, o.maxMessageBytes, host.fetcher.createParser, {
      onEvent: (e) => {
        if (e.id !== undefined) ex.lastEventId = resumableEventId(e.id);
        eventMessage(host, e, ex.gen, ex);
        if (ex.done && grace === undefined) {
          grace = setTimeout(() => stream.destroy(), AFTER_RESPONSE_GRACE);
          grace.unref();
        }
      },
      onRetry: (ms) => {
        ex.retryMs = ms;
      },
      onActivity: idle ? () => idle!.refresh() : undefined,
    });
  } catch (err) {
    if (ex.done || ex.cancelled) return "done";
    if (ex.idleFired) throw new McpClientError("transport", "listen_idle_timeout");
    if (err instanceof McpClientError) throw err;
    if (ex.controller.signal.aborted) throw new Aborted();
    return "early";
  } finally {
    clearTimeout(grace);
    clearTimeout(idle);
  }
  return ex.done || ex.cancelled ? "done" : "early";
}

/** A notification or a response: one POST, answered 2xx. Rejects with the typed error. */
export async function postOneWay(host: HttpHost, body: string, method: string | undefined): Promise<void> {
  if (host.sseActive) return host.sse.post(body);
  const session = host.session;
  const creds = host.credentials;
  const send = async () => {
    for (let retries = 0; ; retries++) {
      const h = session.headers(ACCEPT_POST);
      const res = await host.fetcher.timed("POST", host.options.url, h, body);
      const status = res.statusCode;
      if (status >= 200 && status < 300) return discardOneWay(res.body, res.headers as Headers);
      if ((status === 401 || status === 403) && creds.hasProvider && retries < MAX_AUTH_RETRIES) {
        discard(res.body);
        const headers = res.headers as Headers;
        if (await creds.challenged(status, headers, creds.sentWith(h))) continue;
        throw answerError(status, headers, undefined);
      }
      throw await errorOf(res, host.options.maxMessageBytes, DISCARD_MS);
    }
  };
  if (method === "notifications/initialized" && session.active) {
    // Later legacy requests wait until the server has heard the handshake is done.
    const p = send();
    session.initialized(p);
    return p;
  }
  const gate = session.gate;
  if (gate) await gate;
  return send();
}

/** One event-stream event: a JSON-RPC message when it is a `message` event with data. */
export function eventMessage(
  host: HttpHost,
  e: { event?: string; data: string },
  gen: number,
  on?: Exchange,
): void {
  if ((e.event !== undefined && e.event !== "message") || e.data.length === 0) return;
  let m: unknown;
  try {
    m = JSON.parse(e.data);
  } catch {
    host.warn("ignored an event-stream event that is not JSON");
    return;
  }
  host.incoming(m, e.data, gen, on);
}
