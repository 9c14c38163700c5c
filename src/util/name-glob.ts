/**
 * The one way tool names are matched against the operator's names and globs: the client's and
 * the hub's `allow` / `deny` filters and the governance policy's `tool` and `server` rules all
 * compile their patterns here, so a spelling that dodges one dodges none.
 *
 * Both the pattern's text and the name are folded the same way before they are compared:
 * Unicode NFKC (fullwidth `ｄｅｌｅｔｅ` is `delete`), then every default-ignorable code point
 * (zero-width spaces and joiners, soft hyphens, variation selectors), bidirectional control and
 * tag character (U+E0000–U+E007F) removed, then case folded. `Delete_Files`, `DELETE_files` and
 * `delete\u200b_files` are all `delete_files`. The wildcards are only the ASCII `*` (any run of
 * characters, none included) and, where a caller admits it, `?` (exactly one); a fullwidth `＊`
 * in a pattern is a literal `*`. Anchored at both ends.
 */

// Default_Ignorable_Code_Point covers the tag block and most bidi controls; both are named too,
// so what is removed does not hang on one Unicode table.
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Bidi_Control}\u{E0000}-\u{E007F}]/gu;
const PLAIN = /^[\x20-\x7e]*$/;

/** A name (or a pattern's literal text) as it is compared: NFKC, invisibles removed, case folded. */
export function foldName(text: string): string {
  // Printable ASCII is its own NFKC form with nothing to remove: only its case is folded.
  if (PLAIN.test(text)) return text.toLowerCase();
  const once = text.normalize("NFKC").replace(INVISIBLE, "");
  // Upper then lower is the nearest JavaScript has to full case folding (ß and ẞ to ss, ς to σ);
  // case mapping can leave text outside NFKC, so it is normalised (and cleaned) once more.
  return once.toUpperCase().toLowerCase().normalize("NFKC").replace(INVISIBLE, "");
}

export interface NameGlobOptions {
  /** Whether `?` is a wildcard for exactly one character (governance rules). Default false. */
  anyOne?: boolean;
}

/** One pattern, compiled: a test of a name already folded by {@link foldName}. */
function compileOne(pattern: string, anyOne: boolean): (folded: string) => boolean {
  const wild = anyOne ? /[*?]/ : /\*/;
  if (!wild.test(pattern)) {
    const exact = foldName(pattern);
    return (folded) => folded === exact;
  }
  if (anyOne && pattern.includes("?")) {
    // Each literal run folded on its own, so no folding can turn text into a wildcard.
    let source = "^";
    for (const piece of pattern.split(/([*?])/)) {
      if (piece === "*") source += "[\\s\\S]*";
      else if (piece === "?") source += "[\\s\\S]";
      else source += foldName(piece).replace(/[\\^$.|+()[\]{}/*?]/g, "\\$&");
    }
    const re = new RegExp(`${source}$`, "u");
    return (folded) => re.test(folded);
  }
  const parts = pattern.split("*").map(foldName);
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  const middle = parts.slice(1, -1).filter((p) => p.length > 0);
  // Left to right, each piece at its first place after the one before: linear, no backtracking.
  return (folded) => {
    if (folded.length < first.length + last.length) return false;
    if (!folded.startsWith(first) || !folded.endsWith(last)) return false;
    let at = first.length;
    const end = folded.length - last.length;
    for (const piece of middle) {
      const found = folded.indexOf(piece, at);
      if (found === -1 || found + piece.length > end) return false;
      at = found + piece.length;
    }
    return true;
  };
}

/**
 * Names and globs, compiled once: the test folds the name it is given once and matches when any
 * pattern does. An empty list matches nothing.
 */
export function compileNameGlobs(
  patterns: string | readonly string[],
  options: NameGlobOptions = {},
): (name: string) => boolean {
  const list = (typeof patterns === "string" ? [patterns] : patterns).map((p) =>
    compileOne(p, options.anyOne === true),
  );
  return (name) => {
    const folded = foldName(name);
    return list.some((m) => m(folded));
  };
}
