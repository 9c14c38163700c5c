// list_changed to a host over stdio (the built CLI): an upstream of the config file killed, the
// host (the official client, both eras) hears tools/list_changed and its tools leave.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client as SdkClient } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import { CLI } from "./support/cli.js";
import { HTTP_OFFICIAL, startHttpFixture } from "./support/http-servers.js";
import { waitFor } from "./support/index.js";

describe.each(["legacy", "modern"] as const)("serve over stdio, a %s host", (era) => {
  it("hears tools/list_changed when an upstream goes away", async () => {
    const dir = mkdtempSync(join(tmpdir(), "serve-stdio-changes-"));
    const http = await startHttpFixture(HTTP_OFFICIAL, ["dual"]);
    const config = join(dir, "mcp.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { docs: { url: http.url } } }));
    let heard = 0;
    const host = new SdkClient(
      { name: "desktop", version: "1.0.0" },
      {
        ...(era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}),
        listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => void heard++ } },
      },
    );
    await host.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "serve", "--config", config],
        stderr: "ignore",
      }),
    );
    try {
      expect((await host.listTools()).tools.map((t) => t.name)).toContain("mcp__docs__echo");
      await http.stop();
      await waitFor(() => heard > 0, 20_000);
      expect((await host.listTools()).tools.map((t) => t.name)).not.toContain("mcp__docs__echo");
    } finally {
      await host.close();
      await http.stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    }
  }, 40_000);
});
