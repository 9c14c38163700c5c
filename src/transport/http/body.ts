/**
 * Reading HTTP bodies under the size cap: whole JSON bodies and event streams, decompressed
 * when the server sent them encoded, counted after decompression (so a gzip bomb is caught).
 */
import type { Readable } from "node:stream";
import { promisify } from "node:util";
import type { EventSourceMessage } from "eventsource-parser";
import { McpClientError } from "../../shared/errors.js";
import { firstHeader, type Headers } from "./headers.js";

// node:zlib, node:stream and node:string_decoder are taken on first use: loading them costs
// milliseconds at import, which a client that never reads an HTTP body should not pay.
const zlib = () => process.getBuiltinModule("node:zlib");

export type Encoding = "identity" | "gzip" | "deflate" | "br";

/** The body's content coding; throws `transport` for one we cannot decode. */
export function encodingOf(headers: Headers): Encoding {
  const v = firstHeader(headers["content-encoding"])?.trim().toLowerCase();
  if (!v || v === "identity") return "identity";
  if (v === "gzip" || v === "x-gzip") return "gzip";
  if (v === "deflate") return "deflate";
  if (v === "br") return "br";
  throw new McpClientError("transport", "unsupported_content_encoding");
}

export function tooLarge(): McpClientError {
  return new McpClientError("message_too_large", "over_max_message_bytes");
}

/**
 * Reads a whole body, at most `cap` bytes before and after decompression. Rejects with
 * `message_too_large` (and destroys the body) past the cap.
 */
export async function readCapped(body: Readable, headers: Headers, cap: number): Promise<Buffer> {
  const encoding = encodingOf(headers);
  const declared = Number(firstHeader(headers["content-length"]));
  if (encoding === "identity" && Number.isFinite(declared) && declared > cap) {
    body.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > cap) {
      body.destroy();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
  if (encoding === "identity") return raw;
  const opts = { maxOutputLength: cap };
  try {
    if (encoding === "gzip") return await promisify(zlib().gunzip)(raw, opts);
    if (encoding === "deflate") return await promisify(zlib().inflate)(raw, opts);
    return await promisify(zlib().brotliDecompress)(raw, opts);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE" || err instanceof RangeError) {
      throw tooLarge();
    }
    throw new McpClientError("transport", "bad_content_encoding");
  }
}

/**
 * Reads at most `cap` bytes of a body as text, for error answers; never throws. With `within`
 * (ms), a body that has not ended by then is destroyed and read as none: an error answer whose
 * body never comes must not hold its caller (or its connection) where no deadline runs.
 */
export async function readSmall(
  body: Readable,
  headers: Headers,
  cap: number,
  within?: number,
): Promise<string | undefined> {
  const timer = within === undefined ? undefined : setTimeout(() => body.destroy(), within).unref();
  try {
    return (await readCapped(body, headers, cap)).toString("utf8");
  } catch {
    body.destroy();
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/** Discards a body so its connection can be reused (or destroys it when that is cheaper). */
export function discard(body: Readable | undefined): void {
  void discarded(body);
}

/**
 * How long a body nobody reads may take to end before it is destroyed. A server that answers a
 * notification or a response with an event stream it keeps open (and silent) would otherwise
 * hold that connection for good: a few such answers take the whole pool, and every later request
 * (the DELETE on close included) waits for a connection that never frees.
 */
export const DISCARD_MS = 1_000;

/**
 * Discards the answer to a notification or a response, which the spec wants as a bare 202. An
 * event stream there can carry nothing we wait for, and a server that keeps it open would hold
 * the connection: it is destroyed at once.
 */
export function discardOneWay(body: Readable, headers: Headers): void {
  // An empty one (`Content-Length: 0`) is read as any other: its connection stays reusable.
  const stream = firstHeader(headers["content-type"])?.toLowerCase().includes("text/event-stream");
  if (stream && firstHeader(headers["content-length"]) !== "0") body.destroy();
  else discard(body);
}

/** `discard`, resolving once the body is read to its end or destroyed (never rejects). */
export function discarded(body: Readable | undefined): Promise<void> {
  if (!body) return Promise.resolve();
  const b = body as Readable & { dump?: (opts?: { limit: number }) => Promise<void> };
  const timer = setTimeout(() => body.destroy(), DISCARD_MS);
  timer.unref();
  const done = () => clearTimeout(timer);
  if (typeof b.dump === "function") return b.dump({ limit: 64 * 1024 }).then(done, done);
  return new Promise<void>((resolve) => {
    body.resume().on("error", () => resolve());
    body.on("close", () => resolve());
  }).then(done);
}

/** The decompressed stream of an encoded body (the body itself when not encoded). */
export function decoded(body: Readable, headers: Headers): Readable {
  const encoding = encodingOf(headers);
  if (encoding === "identity") return body;
  const z =
    encoding === "gzip"
      ? zlib().createGunzip()
      : encoding === "deflate"
        ? zlib().createInflate()
        : zlib().createBrotliDecompress();
  process.getBuiltinModule("node:stream").pipeline(body, z, () => {});
  return z;
}

export interface SseHandlers {
  onEvent(event: EventSourceMessage): void;
  onRetry?(ms: number): void;
  /** Called for every chunk of bytes (keep-alive comments included): an idle timer resets here. */
  onActivity?(): void;
}

type CreateParser = typeof import("eventsource-parser").createParser;

/**
 * Reads an event stream to its end, calling `onEvent` for each event. Rejects with
 * `message_too_large` when one event (or the bytes buffered towards one) is over `cap`. A
 * handler that throws stops the read and rejects with what it threw. `stop()` inside a handler
 * (through the returned flag) ends the read early.
 */
export async function readEvents(
  stream: Readable,
  cap: number,
  createParser: CreateParser,
  handlers: SseHandlers,
  shouldStop: () => boolean = () => false,
): Promise<void> {
  let failure: unknown;
  const parser = createParser({
    maxBufferSize: cap,
    onEvent: (event) => {
      if (failure !== undefined) return;
      if (event.data.length > cap / 3 && Buffer.byteLength(event.data, "utf8") > cap) {
        failure = tooLarge();
        return;
      }
      try {
        handlers.onEvent(event);
      } catch (err) {
        failure = err;
      }
    },
    onRetry: (ms) => handlers.onRetry?.(ms),
    onError: (err) => {
      if (err.type === "max-buffer-size-exceeded") failure = tooLarge();
      // Unknown fields and bad retry values are ignored, as the SSE standard says.
    },
  });
  // A StringDecoder (a multi-byte character split across chunks is kept for the next one) costs
  // less to make than a TextDecoder, once per stream; the BOM a TextDecoder drops is dropped here.
  const decoder = new (process.getBuiltinModule("node:string_decoder").StringDecoder)("utf8");
  let first = true;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    handlers.onActivity?.();
    let text = decoder.write(chunk);
    if (first && text.length > 0) {
      first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    parser.feed(text);
    if (failure !== undefined) {
      stream.destroy();
      throw failure;
    }
    if (shouldStop()) return;
  }
  const rest = decoder.end();
  parser.feed(first && rest.charCodeAt(0) === 0xfeff ? rest.slice(1) : rest);
  if (failure !== undefined) throw failure;
}
