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
