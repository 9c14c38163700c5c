/**
 * The legacy session's standalone GET stream: where the server's own requests and notifications
 * arrive between requests. Resumed with `Last-Event-ID` after the server's `retry:`; a 404 means
 * the session is gone (renewed at once); repeated failures give up and fail the transport.
 */
import type { Dispatcher } from "undici";
import { McpClientError } from "../../shared/errors.js";
import { decoded, discard, readEvents } from "./body.js";
import { eventMessage } from "./exchange.js";
import { sleep } from "./fetcher.js";
import { contentType, type Headers, resumableEventId } from "./headers.js";
import { ACCEPT_SSE, type HttpHost, type SessionPart } from "./host.js";

const MAX_LISTEN_FAILURES = 5;

export class GetStream {
  readonly #host: HttpHost;
  readonly #session: SessionPart;
  #controller: AbortController | undefined;
  /** A response stream is open: the server's own notifications reach the client now. */
  #open = false;
  /** Counts the open streams that ended: a notification sent in between may be lost. */
  #breaks = 0;

  constructor(host: HttpHost, session: SessionPart) {
    this.#host = host;
    this.#session = session;
  }

  start(gen: number): void {
    if (this.#controller || this.#host.sseActive) return;
    const controller = new AbortController();
    this.#controller = controller;
    void this.#loop(gen, controller);
  }

  stop(): void {
    this.#controller?.abort();
    this.#controller = undefined;
    this.#closed();
  }

  /** While a stream is open, a number that changes whenever one was lost since; else null. */
  get heard(): number | null {
    return this.#open ? this.#breaks : null;
  }

  #closed(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#breaks += 1;
  }

  async #loop(gen: number, controller: AbortController): Promise<void> {
    const host = this.#host;
    const o = host.options;
    let failures = 0;
    let lastEventId: string | undefined;
    let retry = 1_000;
    const live = () => host.running && gen === host.gen && !controller.signal.aborted;
    while (live()) {
      const h = this.#session.headers(ACCEPT_SSE);
      if (lastEventId !== undefined) h["last-event-id"] = lastEventId;
      let res: Dispatcher.ResponseData;
      try {
        res = await host.fetcher.timed("GET", o.url, h, undefined, controller.signal);
      } catch {
        if (!live()) return;
        if (++failures >= MAX_LISTEN_FAILURES) return this.#gaveUp(controller);
        await sleep(retry, controller.signal).catch(() => {});
        continue;
      }
      const rh = res.headers as Headers;
      if (res.statusCode !== 200 || contentType(rh) !== "text/event-stream") {
        discard(res.body);
        // 405 or 400: the server offers no standalone stream. 404: the session is gone (the
        // server restarted): renew it now, or nothing would be heard until the next request.
        const sid = this.#session.sessionId;
        if (res.statusCode === 404 && sid) {
          this.#done(controller);
          this.#session.renew(sid).catch((err) => host.streamLost(gen, err));
          return;
        }
        if (res.statusCode === 405 || res.statusCode === 404 || res.statusCode === 400)
          return this.#done(controller);
        if (++failures >= MAX_LISTEN_FAILURES) return this.#gaveUp(controller);
        await sleep(retry, controller.signal).catch(() => {});
        continue;
      }
      const stream = decoded(res.body, rh);
      let events = 0;
      const onAbort = () => stream.destroy();
      controller.signal.addEventListener("abort", onAbort, { once: true });
      const idle = setTimeout(() => stream.destroy(), o.listenIdleTimeout);
      this.#open = true;
      try {
        await readEvents(stream, o.maxMessageBytes, host.fetcher.createParser, {
          onEvent: (e) => {
            events += 1;
            if (e.id !== undefined) lastEventId = resumableEventId(e.id);
            eventMessage(host, e, gen);
          },
          onRetry: (ms) => {
            retry = this.#session.resumeDelay(ms, 60_000);
          },
          onActivity: () => idle.refresh(),
        });
      } catch (err) {
        if (McpClientError.is(err, "message_too_large")) {
          host.warn("dropped the server's event stream: an event was over maxMessageBytes");
        }
      } finally {
        this.#closed();
        clearTimeout(idle);
        controller.signal.removeEventListener("abort", onAbort);
      }
      if (!live()) return;
      failures = events > 0 ? 0 : failures + 1;
      if (failures >= MAX_LISTEN_FAILURES) return this.#gaveUp(controller);
      await sleep(retry, controller.signal).catch(() => {});
    }
  }

  #done(controller: AbortController): void {
    if (this.#controller === controller) this.#controller = undefined;
  }

  #gaveUp(controller: AbortController): void {
    this.#done(controller);
    this.#host.warn("gave up on the server's event stream after repeated failures");
    this.#host.streamLost(this.#host.gen, new McpClientError("transport", "event_stream_lost"));
  }
}
