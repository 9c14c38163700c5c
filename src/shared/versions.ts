/** The two protocol eras: modern (stateless, 2026-07-28 on) and legacy (initialize handshake). */
export type Era = "modern" | "legacy";

/** Modern revisions this client speaks, newest first. */
export const MODERN_VERSIONS = ["2026-07-28"] as const;
/** Legacy (initialize handshake) revisions this client speaks, newest first. */
export const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18"] as const;

/**
 * Older legacy revisions a server may answer `initialize` with. Never pinned or asked for, but
 * accepted, so that servers of the deprecated HTTP+SSE era (2024-11-05) stay reachable.
 */
export const OLDER_LEGACY_VERSIONS = ["2025-03-26", "2024-11-05"] as const;

export type ModernVersion = (typeof MODERN_VERSIONS)[number];
export type LegacyVersion = (typeof LEGACY_VERSIONS)[number];
export type ProtocolVersion = ModernVersion | LegacyVersion;

/** The `protocol` option: an era, or one exact version to pin. */
export type ProtocolChoice = "auto" | "modern" | "legacy" | ProtocolVersion;

export const PROTOCOL_CHOICES: readonly ProtocolChoice[] = [
  "auto",
  "modern",
  "legacy",
  ...MODERN_VERSIONS,
  ...LEGACY_VERSIONS,
];

export function isModernVersion(v: unknown): v is ModernVersion {
  return (MODERN_VERSIONS as readonly unknown[]).includes(v);
}

export function isLegacyVersion(v: unknown): v is LegacyVersion {
  return (LEGACY_VERSIONS as readonly unknown[]).includes(v);
}

export function eraOf(version: ProtocolVersion): Era {
  return isModernVersion(version) ? "modern" : "legacy";
}

/** `_meta` keys of the modern per-request fields. */
export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;
