/**
 * The text a tools listing page was parsed from, so that a listing whose pages are the same
 * text as the last one's can keep the last listing's intake (no compare, no copies) instead of
 * doing it all again for the same JSON.
 *
 * A transport hands the text to its sink with the message (`TransportSink.message`'s `source`);
 * the connection passes it to the request the message settles (`OpCaller.source`), and the
 * listing keeps it beside the page it fetched. Nothing is kept anywhere else.
 */

/** One response's text, as parsed, with the id the parse gave its message. */
export interface MessageSource {
  readonly text: string;
  readonly id: unknown;
}

/** How far from each end of the text the JSON-RPC id is looked for. */
const SCAN = 256;

/**
 * Whether the `result` of two responses is the same JSON, key order included, judged by their
 * text alone: true only when the texts are equal, or when the ids differ and the texts differ in
 * one place where both hold only ASCII digits, found within {@link SCAN} characters of the start
 * or of the end (where servers write the `id`). Anything else is false (the caller does the full
 * work), never a wrong true.
 *
 * Why that is sound: JSON has digits only inside strings and numbers, so two texts equal but for
 * one run of digits, read left to right, give the same tokens but for one string or number (or
 * one sole array element present or not). If that token were inside `result`, every other
 * top-level member, `id` among them, would be the same tokens, and so the same id; the ids
 * differ, so the token is outside `result` (the id itself, or a key that is neither `result` nor
 * `id`: "result" and "id" are not one digit run apart), and `result` parses from the same
 * tokens. A nested `"id"` key or a number inside `result` cannot pass: it leaves the ids equal.
 */
export function sameResult(a: MessageSource, b: MessageSource): boolean {
  const x = a.text;
  const y = b.text;
  if (x === y) return true;
  if (!differentIds(a.id, b.id)) return false;
  const k = Math.min(x.length, y.length, SCAN);
  let p = 0;
  while (p < k && x.charCodeAt(p) === y.charCodeAt(p)) p++;
  if (p < k) {
    // The first difference is near the start: skip each side's digits there; the rest must match.
    let i = p;
    let j = p;
    while (isDigit(x.charCodeAt(i))) i++;
    while (isDigit(y.charCodeAt(j))) j++;
    return x.length - i === y.length - j && x.slice(i) === y.slice(j);
  }
  let s = 0;
  while (s < k && x.charCodeAt(x.length - 1 - s) === y.charCodeAt(y.length - 1 - s)) s++;
  if (s === SCAN) return false; // the difference is in the middle: not looked for
  // The last difference is near the end: skip each side's digits before it; the rest must match.
  let i = x.length - s;
  let j = y.length - s;
  while (i > 0 && isDigit(x.charCodeAt(i - 1))) i--;
  while (j > 0 && isDigit(y.charCodeAt(j - 1))) j--;
  return i === j && x.slice(0, i) === y.slice(0, j);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Two ids the parse gave (a string or an integer each) that are not the same value. */
function differentIds(a: unknown, b: unknown): boolean {
  const ta = typeof a;
  const tb = typeof b;
  if ((ta !== "string" && ta !== "number") || (tb !== "string" && tb !== "number")) return false;
  return a !== b;
}
