/**
 * The hex digest of `text` (as UTF-8). node:crypto is taken from Node on first use, not
 * imported: loading it costs milliseconds at import, and most clients never hash anything.
 */
export function hexDigest(algorithm: "sha1" | "sha256", text: string): string {
  return process.getBuiltinModule("node:crypto").createHash(algorithm).update(text, "utf8").digest("hex");
}
