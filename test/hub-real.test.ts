// The hub in front of three real servers from npm at once: @modelcontextprotocol/server-filesystem
// and server-everything over stdio, and the official @modelcontextprotocol/server over HTTP on
// 127.0.0.1. One list, qualified names, routed calls, filters; then the HTTP server is killed
// (its tools leave, the others keep answering, hub:server_failed) and started again on the same
// port (hub:server_restarted, its tools return).
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Hub } from "../src/index.js";
import { recordEvents } from "./support/events.js";
import { HTTP_OFFICIAL, type RunningServer, startHttpFixture } from "./support/http-servers.js";
import { everythingServer, FILESYSTEM_SERVER, nodeServer, silentLogger, waitFor } from "./support/index.js";

const text = (r: { content: Array<Record<string, unknown>> }) => r.content.map((c) => c.text).join("");

describe("three real servers behind one hub", () => {
  let dir: string;
  let http: RunningServer;
  let hub: Hub;
  const logger = silentLogger();
  const rec = recordEvents({ names: ["hub:server_failed", "hub:server_restarted"] });

  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "hub-real-")));
    writeFileSync(join(dir, "a.txt"), "hello from the filesystem");
    http = await startHttpFixture(HTTP_OFFICIAL, ["dual"]);
    hub = new Hub({
      name: "real",
      logger,
      clientOptions: { logger, requestTimeout: 10_000 },
      listTimeout: 5_000,
      servers: {
        fs: {
          transport: nodeServer(FILESYSTEM_SERVER, [dir]),
          deny: ["write_*", "edit_*", "move_*", "create_*"],
        },
        everything: { transport: everythingServer(), allow: ["echo", "get-sum"] },
        docs: {
          transport: { type: "http", url: http.url },
          // Health checks notice the server is gone without a request; a client that gives up
          // is started again by the hub with this backoff. 500 ms, not less: two checks unanswered
          // in a row restart the transport, and on a loaded machine a live server can be that slow.
          client: { healthCheckInterval: 500, maxReconnects: 2, backoff: () => 100 },
        },
      },
    });
  }, 30_000);

  afterAll(async () => {
    rec.stop();
    await hub?.close();
    await http?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists every server's tools under qualified names, honours filters, routes calls", async () => {
    const status = await hub.ready({ timeout: 20_000 });
    expect(Object.values(status.servers).map((s) => s.state)).toEqual(["ready", "ready", "ready"]);
    const names = (await hub.listTools()).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["mcp__fs__read_text_file", "mcp__fs__list_directory"]));
    expect(names).toEqual(
      expect.arrayContaining(["mcp__everything__echo", "mcp__docs__echo", "mcp__docs__add"]),
    );
    // allow: only those two of server-everything's many tools.
    expect(names.filter((n) => n.startsWith("mcp__everything__")).sort()).toEqual([
      "mcp__everything__echo",
      "mcp__everything__get-sum",
    ]);
    expect(names).not.toContain("mcp__fs__write_file");
    expect(
      await hub
        .callTool("mcp__fs__write_file", { path: join(dir, "b.txt"), content: "x" })
        .catch((e) => e.kind),
    ).toBe("not_found");

    const read = await hub.callTool("mcp__fs__read_text_file", { path: join(dir, "a.txt") });
    expect(text(read)).toContain("hello from the filesystem");
    expect(text(await hub.callTool("mcp__everything__echo", { message: "hi" }))).toContain("hi");
    expect(text(await hub.callTool("mcp__docs__echo", { message: "over http" }))).toBe("over http");
  }, 30_000);

  it("a killed server leaves the list and comes back; the others keep answering", async () => {
    await hub.ready({ timeout: 20_000 });
    const port = http.port;
    await http.stop();
    await waitFor(
      () => rec.of("hub:server_failed").some((e) => e.client === "real" && e.serverId === "docs"),
      "server_failed",
    );
    const failed = rec.of("hub:server_failed").find((e) => e.serverId === "docs")!;
    expect(typeof failed.errorKind).toBe("string");

    const down = await hub.listToolsDetailed();
    expect(down.servers.docs!.status).not.toBe("ok");
    expect(down.tools.some((t) => t.serverId === "docs")).toBe(false);
    expect(down.servers.fs!.status).toBe("ok");
    expect(down.servers.everything!.status).toBe("ok");
    expect(text(await hub.callTool("mcp__everything__echo", { message: "still here" }))).toContain(
      "still here",
    );
    await expect(hub.callTool("mcp__docs__echo", { message: "x" })).rejects.toMatchObject({
      kind: "unavailable",
    });

    http = await startHttpFixture(HTTP_OFFICIAL, ["dual", String(port)]);
    await waitFor(
      () => rec.of("hub:server_restarted").some((e) => e.client === "real" && e.serverId === "docs"),
      "server_restarted",
    );
    const back = await hub.listTools();
    expect(back.map((t) => t.name)).toEqual(
      expect.arrayContaining(["mcp__docs__echo", "mcp__fs__read_text_file"]),
    );
    expect(text(await hub.callTool("mcp__docs__echo", { message: "back" }))).toBe("back");
  }, 60_000);
});
