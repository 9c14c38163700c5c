// The clients the suite compares, behind one shape: { version, call(), listAll(), close() }.
//   conduit   this tree's dist/
//   base      another build of conduit-mcp (--base DIR: its dist/), e.g. the commit before a change
//   official  @modelcontextprotocol/client 2.4.0
//   bare      the hand-written loops (bare-client.mjs, http-bare-client.mjs): the floor
// conduit and base use the default negotiation (`protocol: "auto"`) for modern and
// `protocol: "legacy"` for legacy; official uses `versionNegotiation: { mode: "auto" }` for modern
// (its default is the 2025 `initialize` sequence) and nothing for legacy. Every client's era is
// checked after connecting.
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

export const MESSAGE = "hello";

/** Loads one client's module; kept apart so a memory child imports only what it measures. */
export async function load(key, transport, baseDir) {
  if (key === "conduit") return import("../dist/index.js");
  if (key === "base") return import(pathToFileURL(join(resolve(baseDir), "dist/index.js")).href);
  if (key === "official") {
    if (transport === "http") return import("@modelcontextprotocol/client");
    const [main, stdio] = await Promise.all([
      import("@modelcontextprotocol/client"),
      import("@modelcontextprotocol/client/stdio"),
    ]);
    return { ...main, ...stdio };
  }
  return transport === "http" ? import("./http-bare-client.mjs") : import("./bare-client.mjs");
}

/** `target`: { command, args } for stdio, { url } for HTTP; `extra`: more conduit options. */
export async function open(key, mod, transport, era, target, extra = {}) {
  const args = { message: MESSAGE };
  if (key === "conduit" || key === "base") {
    const client = new mod.Client({
      name: "bench",
      transport:
        transport === "http"
          ? { type: "http", url: target.url }
          : {
              type: "stdio",
              command: target.command,
              args: target.args,
              ...(target.env ? { env: target.env } : {}),
            },
      ...(era === "legacy" ? { protocol: "legacy" } : {}),
      ...extra,
    });
    await client.ready();
    const s = client.status();
    if (s.era !== era) throw new Error(`${key} negotiated ${s.era}, wanted ${era}`);
    return {
      version: s.version,
      call: () => client.callTool("echo", args),
      listAll: () => client.listAllTools({ refresh: true }),
      close: () => client.close(),
    };
  }
  if (key === "official") {
    const client = new mod.Client(
      { name: "bench", version: "1.0.0" },
      era === "modern" ? { versionNegotiation: { mode: "auto" } } : {},
    );
    await client.connect(
      transport === "http"
        ? new mod.StreamableHTTPClientTransport(new URL(target.url))
        : new mod.StdioClientTransport({ command: target.command, args: target.args }),
    );
    const got = client.getProtocolEra();
    if (got !== era) throw new Error(`official client negotiated ${got}, wanted ${era}`);
    const params = { name: "echo", arguments: args };
    return {
      version: client.getNegotiatedProtocolVersion(),
      call: () => client.callTool(params),
      async listAll() {
        const tools = [];
        let cursor;
        do {
          const page = await client.listTools(cursor === undefined ? undefined : { cursor });
          tools.push(...page.tools);
          cursor = page.nextCursor;
        } while (cursor !== undefined);
        return tools;
      },
      close: () => client.close(),
    };
  }
  const client =
    transport === "http"
      ? await mod.BareHttpClient.connect(target.url, era)
      : await mod.BareClient.connect(target.command, target.args, era);
  return {
    version: era === "modern" ? "2026-07-28" : "2025-11-25",
    call: () => client.callTool("echo", args),
    listAll: () => client.listAllTools(),
    close: () => client.close(),
  };
}
