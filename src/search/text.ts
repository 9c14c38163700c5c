/**
 * How tool texts and queries become terms: split on anything that is not a letter or digit, on
 * camelCase and on letter/digit boundaries, lower-cased, common words dropped, and a light
 * suffix stemmer so "folders", "creating" and "created" meet "folder" and "create".
 */

// Words that say nothing about which tool is meant ("please can you make a ..."), plus MCP filler.
const STOP = new Set(
  (
    "a an the and or of to in on at by for from with without into onto as is are was were be been " +
    "being it its this that these those there their them they i me my we our you your he she his her " +
    "him do does did done can could would should will shall may might must please want need like " +
    "some any all each every which what who whom whose when where why how than then so if but not no " +
    "just also only about over under up down out off again more most very too via per mcp tool tools " +
    "using use used let lets"
  ).split(" "),
);

/** Tokens of a text before stemming: case and digit boundaries split, lower-cased. */
export function words(text: string): string[] {
  const spaced = text
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/([A-Za-z])(\d)/g, "$1 $2")
    .replace(/(\d)([A-Za-z])/g, "$1 $2");
  return spaced
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

/**
 * A light English stemmer: plural, -ing, -ed, -ly, then a final e and y folded, so the forms of a
 * word meet. Deliberately weaker than Porter's: tool names are short and "organization" must not
 * meet "organ".
 */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("xes") || w.endsWith("ches") || w.endsWith("shes")) w = w.slice(0, -2);
  else if (w.endsWith("s") && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith("ing") && w.length > 5) w = undouble(w.slice(0, -3));
  else if (w.endsWith("ed") && w.length > 4) w = undouble(w.slice(0, -2));
  else if (w.endsWith("ly") && w.length > 5) w = w.slice(0, -2);
  if (w.endsWith("e") && w.length > 3) w = w.slice(0, -1);
  if (w.endsWith("y") && w.length > 3) w = `${w.slice(0, -1)}i`;
  return w;
}

function undouble(w: string): string {
  return /([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w) ? w.slice(0, -1) : w;
}

/** The terms of a text, in order, stop words dropped, stemmed; at most `max` of them. */
export function terms(text: string, max = Number.POSITIVE_INFINITY): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    if (STOP.has(w)) continue;
    out.push(stem(w));
    if (out.length >= max) break;
  }
  return out;
}
