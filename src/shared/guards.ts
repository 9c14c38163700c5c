/**
 * Shape checks for the results the client relies on. Small type guards instead of a schema
 * library: they look at the fields the client reads and nothing more (the hot path stays cheap).
 */

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === "string");
}

/** `{ name, version, ... }` as servers and clients describe themselves. */
export interface Implementation {
  name: string;
  version: string;
  title?: string;
  [key: string]: unknown;
}

export function isImplementation(v: unknown): v is Implementation {
  return isObject(v) && typeof v.name === "string" && typeof v.version === "string";
}

/** A result that carries `supportedVersions` claims to be a `DiscoverResult`. */
/**
 * A result meant as a `DiscoverResult`: it has `supportedVersions`, or a `resultType`, which only
 * modern results carry (a modern server that left its versions out broke the protocol; it is not
 * a legacy server).
 */
export function looksLikeDiscoverResult(v: JsonObject): boolean {
  return "supportedVersions" in v || "resultType" in v;
}

export function isValidDiscoverResult(v: JsonObject): boolean {
  return (
    isStringArray(v.supportedVersions) &&
    v.supportedVersions.length > 0 &&
    isObject(v.capabilities) &&
    (v.instructions === undefined || typeof v.instructions === "string") &&
    (v._meta === undefined || isObject(v._meta)) &&
    (v.resultType === undefined || v.resultType === "complete")
  );
}

export function isInitializeResult(v: JsonObject): boolean {
  return (
    typeof v.protocolVersion === "string" &&
    isObject(v.capabilities) &&
    isImplementation(v.serverInfo) &&
    (v.instructions === undefined || typeof v.instructions === "string")
  );
}
