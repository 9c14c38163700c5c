/**
 * Tool and server globs: `*` matches any run of characters (none included), `?` exactly one,
 * every other character only itself. Case-sensitive, anchored at both ends: `read_*` matches
 * `read_file`, never `unread_file`, and `a.b` never matches `aXb`.
 */
export function compileGlob(glob: string): (value: string) => boolean {
  if (!/[*?]/.test(glob)) return (value) => value === glob;
  let source = "^";
  for (const ch of glob) {
    if (ch === "*") source += "[\\s\\S]*";
    else if (ch === "?") source += "[\\s\\S]";
    else source += ch.replace(/[\\^$.|+()[\]{}/]/g, "\\$&");
  }
  const re = new RegExp(`${source}$`, "u");
  return (value) => re.test(value);
}

/** A glob or a list of globs: matches when any one does. */
export function compileGlobs(globs: string | readonly string[]): (value: string) => boolean {
  const list = (typeof globs === "string" ? [globs] : globs).map(compileGlob);
  return (value) => list.some((m) => m(value));
}
