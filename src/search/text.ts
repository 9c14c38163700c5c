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
    "some any each which what who whom whose when where why how than then so if but not no " +
    "just also only about over under up down out off again more most very too via per mcp tool tools " +
    "using use used let lets"
  ).split(" "),
);

// One pass: a capitalised or lower-case run ("Directory", "create"), an upper-case run not
// followed by lower case ("URL" in "getURLPath"), a run of digits, or a run of other letters.
const WORD = /\p{Lu}?\p{Ll}+|\p{Lu}+(?!\p{Ll})|\p{N}+|\p{L}+/gu;

/** Tokens of a text before stemming: case and digit boundaries split, lower-cased. */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(WORD)) out.push(m[0].toLowerCase());
  return out;
}

/**
 * A light English stemmer: plural, -ing, -ed, -ly, then a final e and y folded, so the forms of a
 * word meet. Deliberately weaker than Porter's: tool names are short and "organization" must not
 * meet "organ".
 */
export function stem(word: string): string {
  const known = stems.get(word);
  if (known !== undefined) return known;
  const out = stemOnce(word);
  // Tool vocabularies are small and repeat across servers: remembered, up to a bound.
  if (stems.size < 50_000) stems.set(word, out);
  return out;
}

const stems = new Map<string, string>();

function stemOnce(word: string): string {
  let w = word;
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("xes") || w.endsWith("ches") || w.endsWith("shes")) w = w.slice(0, -2);
  else if (w.endsWith("s") && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  // "reviewer" meets "review", "browser" "browse"; short words ("folder", "user") keep theirs.
  if (w.endsWith("er") && w.length > 6) w = w.slice(0, -2);
  else if (w.endsWith("ing") && w.length > 5) w = undouble(w.slice(0, -3));
  else if (w.endsWith("ed") && w.length > 4) w = undouble(w.slice(0, -2));
  else if (w.endsWith("ly") && w.length > 5) w = w.slice(0, -2);
  if (w.endsWith("e") && w.length > 3) w = w.slice(0, -1);
  if (w.endsWith("y") && w.length > 3) w = `${w.slice(0, -1)}i`;
  return w;
}

function undouble(w: string): string {
  return /([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w) ? w.slice(0, -1) : w;
}

const WORD_ASCII = /[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+/g;
const ASCII = /^[\x00-\x7f]*$/;

/** The terms of a text, in order, stop words dropped, stemmed; at most `max` of them. */
export function terms(text: string, max = Number.POSITIVE_INFINITY): string[] {
  const out: string[] = [];
  // Most tool texts are ASCII: a plain pattern reads them several times faster than \p classes.
  const re = ASCII.test(text) ? WORD_ASCII : WORD;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null && out.length < max; m = re.exec(text)) {
    const t = term(m[0]);
    if (t !== "") out.push(t);
  }
  return out;
}

// A word as the text spells it to its term ("" for a stop word): the lower-casing, stop-word
// check and stemming were most of indexing's tokenising, and tool texts repeat their words.
const spelled = new Map<string, string>();

function term(raw: string): string {
  const known = spelled.get(raw);
  if (known !== undefined) return known;
  const w = raw.toLowerCase();
  const out = STOP.has(w) ? "" : stem(w);
  if (spelled.size < 50_000) spelled.set(raw, out);
  return out;
}
