// serve in front of a hub of real servers (the official server fixture and server-everything over
// stdio), with the official client as the host over HTTP in both eras: lists, calls, resources,
// prompts, completions, progress and cancellation, all through one upstream connection per server.
import type { Client as SdkClient } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServeHandle } from "../src/serve/index.js";
import { everythingServer, officialServer, waitFor } from "./support/index.js";
import { type HostEra, httpHost, type ServedHub, serveHub, textOf } from "./support/serve.js";

describe.each(["modern", "legacy"] as HostEra[])("serve over HTTP, a %s host", (era) => {
  let s: ServedHub;
  let served: ServeHandle;
  let host: SdkClient;

  beforeAll(async () => {
    s = await serveHub({
      input: false,
      servers: {
        official: { transport: officialServer("dual") },
        everything: { transport: everythingServer() },
      },
    });
    served = s.served;
    host = await httpHost(served.url!, era);
  }, 30_000);

  afterAll(async () => {
    await host?.close();
    await s?.close();
  });

  it("lists every server's tools under qualified names and routes calls", async () => {
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { tools } = await host.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain("mcp__official__add");
    expect(names).toContain("mcp__everything__echo");
    const add = await host.callTool({ name: "mcp__official__add", arguments: { a: 2, b: 3 } });
    expect(add.structuredContent).toEqual({ sum: 5 });
    const echo = await host.callTool({ name: "mcp__everything__echo", arguments: { message: "hi" } });
    expect(textOf(echo)).toContain("hi");
    const failed = await host.callTool({ name: "mcp__official__fail", arguments: {} });
    expect(failed.isError).toBe(true);
    await expect(host.callTool({ name: "mcp__nobody__nothing", arguments: {} })).rejects.toThrow();
  });

  it("serves resources and templates under per-server URIs, prompts and completions", async () => {
    const { resources } = await host.listResources();
    const readme = resources.find((r) => r.uri === "conduit://official/file:///readme.md");
    expect(readme).toBeDefined();
    const read = await host.readResource({ uri: readme!.uri });
    expect(read.contents[0]).toMatchObject({ uri: "conduit://official/file:///readme.md", text: "# Hello" });
    const { resourceTemplates } = await host.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain("conduit://official/note://{id}");
    const note = await host.readResource({ uri: "conduit://official/note://7" });
    expect(note.contents[0]).toMatchObject({ text: "note 7" });
    const { prompts } = await host.listPrompts();
    expect(prompts.map((p) => p.name)).toContain("mcp__official__greeting");
    const prompt = await host.getPrompt({ name: "mcp__official__greeting", arguments: { name: "Ada" } });
    expect(JSON.stringify(prompt.messages)).toContain("Hello, Ada!");
    const done = await host.complete({
      ref: { type: "ref/prompt", name: "mcp__official__greeting" },
      argument: { name: "name", value: "A" },
    });
    expect(done.completion.values).toEqual(["Ada", "Alan"]);
  });

  // Log entries go to 2025 sessions (a 2026-07-28 host has no standing channel for them, and the
  // revision deprecates logging).
  if (era === "legacy")
    it("forwards an upstream's log entries, marked with their server", async () => {
      const entries: Array<{ level: string; logger?: string; data: unknown }> = [];
      host.setNotificationHandler("notifications/message", (n) => {
        entries.push(n.params as { level: string; logger?: string; data: unknown });
      });
      // server-everything sends one log entry at once, then one every 5 s.
      await host.callTool({ name: "mcp__everything__toggle-simulated-logging", arguments: {} });
      await waitFor(() => entries.length > 0, 10_000);
      expect(entries[0]!.logger).toBe("everything");
      expect(String(entries[0]!.data)).toMatch(/-level message|level-message/);
      await host.callTool({ name: "mcp__everything__toggle-simulated-logging", arguments: {} });
    });

  it("passes progress down and a cancellation up", async () => {
    const seen: number[] = [];
    const r = await host.callTool(
      { name: "mcp__official__slow", arguments: { steps: 3, every: 20 } },
      { onprogress: (p) => void seen.push(p.progress) },
    );
    expect(textOf(r)).toBe("done after 3");
    expect(seen).toEqual([1, 2, 3]);
    const controller = new AbortController();
    const pending = host.callTool(
      { name: "mcp__official__slow", arguments: { steps: 50, every: 100 } },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(new Error("stop")), 150);
    await expect(pending).rejects.toThrow();
    // The hub is still fine afterwards.
    const again = await host.callTool({ name: "mcp__official__add", arguments: { a: 1, b: 1 } });
    expect(again.structuredContent).toEqual({ sum: 2 });
  });
});
