/**
 * Tokens at rest: AES-256-GCM with the application's key, the key's Redis name as additional
 * data (a sealed value moved under another principal's key does not open). Without a key the
 * value is JSON: Redis is then as trusted as the process.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

const MARK = "gcm1.";

/** A 32-byte key from what the application gave: 32 raw bytes, or any string (hashed). */
export function sealKey(key: string | Uint8Array): Buffer {
  if (typeof key !== "string" && key.byteLength === 32) return Buffer.from(key);
  if (typeof key === "string" && key.length < 16) {
    throw new TypeError(
      "conduit-mcp: redisStores encryptionKey must be 32 bytes or a string of 16+ characters",
    );
  }
  return createHash("sha256").update(key).digest();
}

export function seal(key: Buffer | undefined, text: string, aad: string): string {
  if (!key) return text;
  const iv = randomBytes(12);
  const c = createCipheriv("aes-256-gcm", key, iv);
  c.setAAD(Buffer.from(aad));
  const body = Buffer.concat([c.update(text, "utf8"), c.final()]);
  return MARK + Buffer.concat([iv, c.getAuthTag(), body]).toString("base64");
}

/** The text, or undefined when it does not open (another key, tampered, not sealed while a key is set). */
export function unseal(key: Buffer | undefined, value: string, aad: string): string | undefined {
  if (!key) return value.startsWith(MARK) ? undefined : value;
  if (!value.startsWith(MARK)) return undefined;
  try {
    const raw = Buffer.from(value.slice(MARK.length), "base64");
    const d = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
    d.setAAD(Buffer.from(aad));
    d.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString("utf8");
  } catch {
    return undefined;
  }
}
