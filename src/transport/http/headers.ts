/**
 * An HTTP answer's headers as undici gives them (a name's value is a string, a list when it
 * repeats, or absent) and reading one. The error mapping (answers.ts), the body reader
 * (body.ts) and the parts that look at an answer all read headers through these.
 */

export type HeaderValue = string | string[] | undefined;
export type Headers = Record<string, HeaderValue>;

/** The first value of a header that may repeat. */
export function firstHeader(v: HeaderValue): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** The media type of an answer, lower case, without parameters ("" when absent). */
export function contentType(headers: Headers): string {
  const v = firstHeader(headers["content-type"]);
  if (!v) return "";
  const semi = v.indexOf(";");
  return (semi < 0 ? v : v.slice(0, semi)).trim().toLowerCase();
}

/** The most an event id may hold to be sent back as `Last-Event-ID` (as a session id). */
export const MAX_EVENT_ID = 1024;

/**
 * An event-stream `id:` as a `Last-Event-ID` can carry it, or `undefined`: an id a header
 * cannot hold (a control or non-ASCII character, space at either end, longer than
 * `MAX_EVENT_ID`) cannot resume the stream, so the stream is treated as one without an id. Sent
 * as it was, it failed the request as a network error, or sent the server a header of any size.
 */
export function resumableEventId(id: string): string | undefined {
  return id.length > 0 && id.length <= MAX_EVENT_ID && /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(id)
    ? id
    : undefined;
}
