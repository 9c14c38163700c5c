/**
 * # The layers, and which way the arrows point
 *
 * Each layer knows only the ones below it; data flows down as requests and up as messages. This
 * test reads every `import` and `export … from` in `src/` (type imports too) and fails when a
 * module reaches upward, or skips to a layer it should not touch. The table is the rule; the
 * folders are how the code spells it (docs/architecture.md is the longer map).
 *
 * | rank | layer | folders under `src/` | may import (besides its own folder) |
 * |---|---|---|---|
 * | 0 | shared vocabulary | `shared/` (the tool vocabulary and the pipeline types too) | nothing in `src/` |
 * | 1 | shared services | `security/`, `telemetry/`, `util/`, `schema/`, `stores/` (state a fleet shares: the store interfaces and their in-memory defaults), `search/` (the tool index) | `shared/` |
 * | 2 | transport | `transport/` | shared |
 * | 3 | connection | `connection/` | transport, shared |
 * | 4 | protocol (era) | `protocol/` | connection, shared |
 * | 5 | client | `client/` | protocol, connection, the transport's seams, shared |
 * | 6 | call layers | `governance/`, `shaping/` | the client (governance: not even that, only shared), the transport's seams, shared; not each other |
 * | 7 | above | `hub/`, `adapters/`, `auth/`, `testing/`, `redis/` | the call layers, the client, the transport's seams, shared; never the public entry (it re-exports them: a cycle); `testing/` may also stand on any lower layer (a kit for tests) |
 * | 8 | applications | `serve/`, `inspect/` | the floors above the call layers and everything they may import; not each other |
 * | 9 | CLI | `cli/` | everything below, the public entry included |
 * | – | public entry | `index.ts` (files directly in `src/`) | every layer but the CLI |
 *
 * "Shared" in the last column means ranks 0 and 1. Shared services may not import each other, so
 * no cycle can form between their folders; neither may two call layers, nor two folders above
 * them. Nothing imports upward: a transport, connection or client file that imports governance,
 * shaping, adapters or the hub fails here (the pipeline is how those layers reach a call: an
 * interceptor the client is given, never a module it imports). The transport never imports
 * `auth/`: a credential provider plugs into the transport's credentials seam.
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
  | "apps"
  | "cli"
  | "entry";

const FOLDERS: Record<string, Layer> = {
  shared: "shared",
  security: "services",
  telemetry: "services",
  util: "services",
  schema: "services",
  stores: "services",
  search: "services",
  transport: "transport",
  connection: "connection",
  protocol: "protocol",
  client: "client",
  governance: "calls",
  shaping: "calls",
  hub: "above",
  adapters: "above",
  auth: "above",
  testing: "above",
  redis: "above",
  serve: "apps",
  inspect: "apps",
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
  above: ["calls", "client", ...SHARED],
  apps: ["above", "calls", "client", ...SHARED],
  cli: ["entry", "apps", "above", "calls", "client", "protocol", "connection", "transport", ...SHARED],
  entry: ["shared", "services", "transport", "connection", "protocol", "client", "calls", "above", "entry"],
};

/**
 * Imports that break the table, each with what fixes it. Empty, and it stays so: the test fails
 * when an edge in it no longer happens (delete the line) or a new one appears.
 */
const KNOWN: Record<string, string> = {};

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
  // Governance judges a call by the shared vocabulary alone (issue 25): it wraps any ToolCaller.
  if (a.folder === "governance" && b.layer === "client") {
    return "governance stands on the shared vocabulary (tool types, the pipeline), not the client";
  }
  if (a.layer === "calls" && b.layer === "calls") {
    return "call layers stand beside each other: one may not import another";
  }
  if (a.layer === "above" && b.layer === "above") {
    return "folders above the call layers stand beside each other: one may not import another";
  }
  if (a.layer === "apps" && b.layer === "apps") {
    return "applications (serve, inspect) stand beside each other: one may not import another";
  }
  if (b.layer === "transport" && TRANSPORT_SEAMS.has(to)) {
    if (["client", "calls", "above", "apps"].includes(a.layer)) return undefined;
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

  it("a transport, connection or client file may not import governance, shaping, adapters or the hub", () => {
    const lower = [
      "transport/stdio.ts",
      "connection/connection.ts",
      "client/client.ts",
      "client/tool-calls.ts",
    ];
    const upper = ["governance/index.ts", "shaping/llm-result.ts", "adapters/openai.ts", "hub/hub.ts"];
    for (const from of lower) {
      for (const to of upper) expect(violation(from, to), `${from} -> ${to}`).toMatch(/may not import/);
    }
  });

  it("the rule itself refuses upward, skipping and sideways imports", () => {
    expect(violation("transport/stdio.ts", "protocol/probe.ts")).toMatch(/may not import/);
    expect(violation("shared/errors.ts", "security/url-policy.ts")).toMatch(/may not import/);
    expect(violation("client/client.ts", "transport/stdio.ts")).toMatch(/may not import/);
    expect(violation("connection/connection.ts", "client/client.ts")).toMatch(/may not import/);
    expect(violation("security/url-policy.ts", "telemetry/events.ts")).toMatch(/each other/);
    expect(violation("hub/hub.ts", "governance/governor.ts")).toBeUndefined();
    expect(violation("governance/policy.ts", "client/types.ts")).toMatch(/shared vocabulary/);
    expect(violation("shaping/llm-call.ts", "client/types.ts")).toBeUndefined();
    expect(violation("hub/hub.ts", "index.ts")).toMatch(/public entry/);
    expect(violation("hub/server-slot.ts", "connection/backoff.ts")).toMatch(/may not import/);
    expect(violation("governance/governor.ts", "shaping/llm-result.ts")).toMatch(/beside each other/);
    expect(violation("governance/governor.ts", "hub/hub.ts")).toMatch(/may not import/);
    expect(violation("hub/hub.ts", "adapters/openai.ts")).toMatch(/beside each other/);
    expect(violation("cli/run.ts", "governance/index.ts")).toBeUndefined();
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
