/**
 * The deprecated 2024-11-05 HTTP+SSE transport: one GET stream in, whose first event names the
 * endpoint; every message out is a POST to that endpoint (same origin only), answered 2xx, with
 * the responses arriving on the stream. The stream ending closes the transport.
 */
import type { Dispatcher } from "undici";
import { McpClientError } from "../../shared/errors.js";
import { errorOf } from "./answers.js";
import { DISCARD_MS, decoded, discardOneWay, readEvents } from "./body.js";
import { eventMessage } from "./exchange.js";
import type { Exchange } from "./exchange-state.js";
import { Aborted } from "./fetcher.js";
import { contentType, type Headers } from "./headers.js";
import { ACCEPT_SSE, type ChannelPart, type HttpHost } from "./host.js";

interface Channel {
  endpoint: URL;
  controller: AbortController;
}

export class SseChannel implements ChannelPart {
  readonly #host: HttpHost;
  #channel: Channel | undefined;

  constructor(host: HttpHost) {
    this.#host = host;
  }

  /** True while the transport speaks the 2024 shape. */
  get active(): boolean {
    return this.#channel !== undefined;
  }

  /** Drops the channel (its stream is aborted). */
  close(): void {
    this.#channel?.controller.abort();
    this.#channel = undefined;
  }

  /** Opens the channel; resolves once its `endpoint` event has arrived. */
  async open(gen: number): Promise<void> {
    if (this.#channel) return;
    const host = this.#host;
    const o = host.options;
    const controller = new AbortController();
    const h = host.baseHeaders(ACCEPT_SSE);
    const timer = setTimeout(() => controller.abort(), o.requestTimeout);
    let res: Dispatcher.ResponseData;
    try {
      res = await host.fetcher.request("GET", o.url, h, undefined, controller.signal);
    } catch (err) {
      clearTimeout(timer);
      throw err instanceof Aborted ? new McpClientError("timeout", "sse_endpoint_timeout") : err;
    }
    const rh = res.headers as Headers;
    if (res.statusCode !== 200 || contentType(rh) !== "text/event-stream") {
      clearTimeout(timer);
      throw await errorOf(res, o.maxMessageBytes, o.requestTimeout);
    }
    const stream = decoded(res.body, rh);
    controller.signal.addEventListener("abort", () => stream.destroy(), { once: true });
    await new Promise<void>((resolve, reject) => {
      let endpoint: URL | undefined;
      readEvents(stream, o.maxMessageBytes, host.fetcher.createParser, {
        onEvent: (e) => {
          if (endpoint === undefined) {
            if (e.event !== "endpoint") throw new McpClientError("transport", "sse_no_endpoint");
            let url: URL;
            try {
              url = new URL(e.data.trim(), o.url);
            } catch {
              throw new McpClientError("transport", "sse_bad_endpoint");
            }
            if (url.origin !== o.url.origin)
              throw new McpClientError("transport", "sse_endpoint_cross_origin");
            url.hash = "";
            endpoint = url;
            clearTimeout(timer);
            this.#channel = { endpoint, controller };
            resolve();
            return;
          }
          eventMessage(host, e, gen);
        },
      }).then(
        () => {
          clearTimeout(timer);
          if (!endpoint) return reject(new McpClientError("transport", "sse_no_endpoint"));
          this.#ended(gen, controller, new McpClientError("transport", "sse_stream_ended"));
        },
        (err) => {
          clearTimeout(timer);
          if (!endpoint) {
            return reject(
              controller.signal.aborted
                ? new McpClientError("timeout", "sse_endpoint_timeout")
                : err instanceof McpClientError
                  ? err
                  : new McpClientError("transport", "sse_stream_failed"),
            );
          }
          this.#ended(
            gen,
            controller,
            err instanceof McpClientError ? err : new McpClientError("transport", "sse_stream_ended"),
          );
        },
      );
    });
  }

  /** The stream ended: nothing more can arrive, so the transport is closed. */
  #ended(gen: number, controller: AbortController, error: McpClientError): void {
    const host = this.#host;
    if (gen !== host.gen || !host.running || this.#channel?.controller !== controller) return;
    this.#channel = undefined;
    host.channelEnded(error);
  }

  /** Posts a request; its response comes on the stream. A failure fails the request. */
  async postRequest(ex: Exchange): Promise<void> {
    try {
      await this.post(ex.body);
    } catch (err) {
      this.#host.fail(ex, err);
    }
  }

  /** Posts one message to the endpoint; rejects with the typed error of a refusal. */
  async post(body: string): Promise<void> {
    const channel = this.#channel;
    if (!channel) throw new McpClientError("transport", "not_connected");
    const host = this.#host;
    const res = await host.fetcher.timed("POST", channel.endpoint, host.baseHeaders(), body);
    if (res.statusCode >= 200 && res.statusCode < 300) return discardOneWay(res.body, res.headers as Headers);
    throw await errorOf(res, host.options.maxMessageBytes, DISCARD_MS);
  }
}
