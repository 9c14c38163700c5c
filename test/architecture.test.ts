/**
 * # The layers, and which way the arrows point
 *
 * Each layer knows only the one below it; data flows down as requests and up as messages. This
 * test reads every `import` and `export … from` in `src/` and fails when a module reaches upward,
 * or skips past the layer below to a layer it should not touch. The table is the rule; the
 * folders are how the code spells it (docs/architecture.md is the longer map).
 *
 * | rank | layer | folders under `src/` | may import (besides its own folder) |
 * |---|---|---|---|
 * | 0 | shared vocabulary | `shared/` | nothing in `src/` |
 * | 1 | shared services | `security/`, `telemetry/`, `util/`, `schema/` | `shared/` |
 * | 2 | transport | `transport/` | shared |
 * | 3 | connection | `connection/` | transport, shared |
 * | 4 | protocol (era) | `protocol/` | connection, shared |
 * | 5 | client | `client/` | protocol, connection, the transport's seams (`transport/transport.ts`, `transport/factory.ts`), shared |
 * | 5½ | call layers | `shaping/` (model shaping) | the client, the transport's seams, shared |
 * | 6 | above one client | `hub/`, `governance/`, `adapters/`, `auth/`, `testing/` | the client, the public entry (`index.ts`), the transport's seams, shared; `testing/` may also stand on any lower layer (it is a kit for tests, and nothing in the library imports it) |
 * | 7 | CLI | `cli/` | the public entry (`index.ts`), above one client, the client, shared |
 * | – | public entry | `index.ts` (files directly in `src/`) | every layer but the CLI |
 *
 * "Shared" in the last column means ranks 0 and 1. Shared services may not import each other, so
 * no cycle can form between their folders. Above-one-client folders (hub, governance, adapters,
 * auth) stand beside each other: one may use another's public API through `index.ts`, not reach
 * into its files. Nothing below the CLI imports the CLI; nothing below rank 6 imports rank 6.
 * The transport in particular never imports `auth/`: a credential provider plugs into the
 * transport's credentials seam (`transport/credentials.ts`), the transport does not look it up.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "../src");

type Layer =
  | "shared"
  | "services"
  | "transport"
  | "connection"
  | "protocol"
  | "client"
  | "calls"
  | "above"
  | "cli"
  | "entry";

const FOLDERS: Record<string, Layer> = {
  shared: "shared",
  security: "services",
  telemetry: "services",
  util: "services",
  schema: "services",
  transport: "transport",
  connection: "connection",
  protocol: "protocol",
  client: "client",
  shaping: "calls",
  hub: "above",
  governance: "above",
  adapters: "above",
  auth: "above",
  testing: "above",
  cli: "cli",
};

/** The transport files the client and upper floors may name: the interface and the factory. */
const TRANSPORT_SEAMS = new Set([
  "transport/transport.ts",
  "transport/factory.ts",
  "transport/credentials.ts",
]);

const SHARED: Layer[] = ["shared", "services"];

const MAY_IMPORT: Record<Layer, Layer[]> = {
  shared: [],
  services: ["shared"],
  transport: SHARED,
  connection: ["transport", ...SHARED],
  protocol: ["connection", ...SHARED],
  client: ["protocol", "connection", ...SHARED],
  calls: ["client", ...SHARED],
  above: ["calls", "client", "entry", ...SHARED],
  cli: ["entry", "above", "calls", "client", ...SHARED],
  entry: ["shared", "services", "transport", "connection", "protocol", "client", "calls", "above", "entry"],
};

/**
 * Imports that landed before this test and break the table, each with what fixes it. The list
 * only shrinks: the test fails when one of them is gone (delete the line) or a new one appears.
 */
const KNOWN: Record<string, string> = {
  // Governance wraps the client's own calls (issue 11 follow-up: the client should take a
  // `callTool` wrapper through its options, and governance stand above it via ToolCaller).
  "client/parts.ts -> governance/governor.ts": "client imports governance",
  "client/governed.ts -> governance/governor.ts": "client imports governance",
  "client/options.ts -> governance/options.ts": "client validates governance options",
  "client/options.ts -> governance/types.ts": "client names governance types",
  // The hub governs every server: it should take governance through index.ts.
  "hub/dispatch.ts -> governance/governor.ts": "hub reaches into governance",
  "hub/hub.ts -> governance/governor.ts": "hub reaches into governance",
  "hub/hub.ts -> governance/options.ts": "hub reaches into governance",
  "hub/options.ts -> governance/options.ts": "hub reaches into governance",
  "hub/options.ts -> governance/types.ts": "hub reaches into governance",
  // The hub's server slot restarts servers with the connection's backoff and state names; both
  // belong in the public API (index.ts) or shared/.
  "hub/server-slot.ts -> connection/backoff.ts": "hub skips to the connection",
  "hub/server-slot.ts -> connection/types.ts": "hub skips to the connection",
};

function layerOf(file: string): { layer: Layer; folder: string } {
  const rel = relative(SRC, file).split("\\").join("/");
  const parts = rel.split("/");
  if (parts.length === 1) return { layer: "entry", folder: "" };
  const folder = parts[0] ?? "";
  const layer = FOLDERS[folder];
  if (layer === undefined) {
    throw new Error(`src/${folder}/ is in no layer: add it to the table in architecture.test.ts`);
  }
  return { layer, folder };
}

/** Why `from` may not import `to`, or undefined when it may. Paths are relative to src/. */
function violation(from: string, to: string): string | undefined {
  const a = layerOf(join(SRC, from));
  const b = layerOf(join(SRC, to));
  if (a.folder === b.folder && a.layer !== "entry") return undefined;
  if (b.layer === "entry" && a.layer !== "entry" && !MAY_IMPORT[a.layer].includes("entry")) {
    return `${a.layer} may not import the public entry`;
  }
  if (a.layer === "services" && b.layer === "services") {
    return "shared services may not import each other (no cycles between their folders)";
  }
  if (a.layer === "above" && b.layer === "above") {
    return "above-one-client folders use each other through index.ts, not each other's files";
  }
  if (b.layer === "transport" && TRANSPORT_SEAMS.has(to)) {
    if (["client", "above"].includes(a.layer)) return undefined;
  }
  if (a.folder === "testing" && !["cli", "entry"].includes(b.layer)) return undefined;
  if (MAY_IMPORT[a.layer].includes(b.layer)) return undefined;
  return `${a.layer} (src/${from}) may not import ${b.layer} (src/${to})`;
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (name.endsWith(".ts")) out.push(path);
  }
  return out;
}

/** Every relative module a file names: static imports, re-exports and dynamic `import()`. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)"(\.{1,2}\/[^"]+)"/gm;
  for (const m of text.matchAll(pattern)) {
    const spec = m[1];
    if (spec === undefined) continue;
    const target = resolve(dirname(file), spec).replace(/\.js$/, ".ts");
    found.push(relative(SRC, target).split("\\").join("/"));
  }
  return found;
}

describe("architecture: a module reaches only into the layer below it", () => {
  const files = walk(SRC);

  it("finds the modules and their imports", () => {
    expect(files.length).toBeGreaterThan(40);
    // The client's parts are wired in client/parts.ts, the one client file that builds the connection.
    const clientImports = importsOf(join(SRC, "client/parts.ts"));
    expect(clientImports).toContain("connection/connection.ts");
  });

  it("no module imports upward or skips to a layer it should not", () => {
    const broken: string[] = [];
    const seen = new Set<string>();
    for (const file of files) {
      const from = relative(SRC, file).split("\\").join("/");
      for (const to of importsOf(file)) {
        const why = violation(from, to);
        const edge = `${from} -> ${to}`;
        if (why !== undefined && !(edge in KNOWN)) broken.push(`${edge}: ${why}`);
        if (why !== undefined) seen.add(edge);
      }
    }
    expect(broken).toEqual([]);
    // A known exception that no longer happens is deleted from KNOWN, so the list only shrinks.
    expect(Object.keys(KNOWN).filter((edge) => !seen.has(edge))).toEqual([]);
  });

  it("the rule itself refuses upward, skipping and sideways imports", () => {
    expect(violation("transport/stdio.ts", "protocol/probe.ts")).toMatch(/may not import/);
    expect(violation("shared/errors.ts", "security/url-policy.ts")).toMatch(/may not import/);
    expect(violation("client/client.ts", "transport/stdio.ts")).toMatch(/may not import/);
    expect(violation("connection/connection.ts", "client/client.ts")).toMatch(/may not import/);
    expect(violation("security/url-policy.ts", "telemetry/events.ts")).toMatch(/each other/);
    expect(violation("hub/hub.ts", "governance/governor.ts")).toMatch(/index\.ts/);
    expect(violation("transport/http/transport.ts", "auth/provider.ts")).toMatch(/may not/);
    // Model shaping stands above the client: the hub and the adapters use it, the client never.
    expect(violation("client/client.ts", "shaping/llm-call.ts")).toMatch(/may not import/);
    expect(violation("shaping/llm-call.ts", "hub/hub.ts")).toMatch(/may not import/);
    expect(violation("hub/hub.ts", "shaping/llm-call.ts")).toBeUndefined();
    expect(violation("adapters/route.ts", "shaping/llm-call.ts")).toBeUndefined();
    expect(violation("client/client.ts", "transport/transport.ts")).toBeUndefined();
    expect(violation("cli/run.ts", "index.ts")).toBeUndefined();
    expect(violation("testing/fake.ts", "transport/in-process.ts")).toBeUndefined();
  });
});
