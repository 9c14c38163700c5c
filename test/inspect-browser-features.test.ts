import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Hub } from "../src/index.js";
import { Desk } from "../src/inspect/index.js";
import { startOfficialHttp } from "./support/http-servers.js";
import { everythingServer, silentLogger } from "./support/index.js";
import { type InspectorPage, openInspectorPage } from "./support/inspect-page.js";
import { startWatchServer, type WatchServer } from "./support/watch-server.js";

describe("inspect in a real browser: fallback, catalog, tasks, sampling, reconnects", () => {
  let old: Awaited<ReturnType<typeof startOfficialHttp>>;
  let watch: WatchServer;
  let hub: Hub;
  let opened: InspectorPage;
  let page: Page;
  const shot = (name: string) => opened.shot(name);
  const view = (name: string) => opened.view(name);
  /** A POST from the page itself (its cookie, its origin), as the page's own code sends. */
  const post = (path: string, body: unknown) =>
    page.evaluate(
      async ([p, b]) => {
        const res = await fetch(p as string, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(b),
        });
        return { status: res.status, body: await res.json() };
      },
      [path, body],
    );

  beforeAll(async () => {
    old = await startOfficialHttp("legacy");
    watch = await startWatchServer(0, { stopSignal: "SIGKILL" });
    const desk = new Desk();
    const logger = silentLogger();
    hub = new Hub({
      name: "inspect-features",
      logger,
      clientOptions: { logger, handler: desk.handler(), requestTimeout: 20_000, backoff: () => 100 },
      listTimeout: 10_000,
      servers: {
        everything: { transport: everythingServer() },
        old: { transport: { type: "http", url: old.url } },
        watch: { transport: { type: "http", url: watch.url }, client: { protocol: "legacy" } },
      },
    });
    await hub.ready({ timeout: 30_000 });
    opened = await openInspectorPage(hub, desk, "inspect-features");
    ({ page } = opened);
  }, 90_000);

  afterAll(async () => {
    await opened?.close();
    await hub?.close();
    await old?.stop();
    await watch?.stop();
  });

  it("says why a server fell back to the legacy era, and nothing for one that never tried modern", async () => {
    const card = page.locator('.server[data-server="old"]');
    expect(await card.locator(".fallback").textContent()).toMatch(
      /^legacy because server\/discover got HTTP 4\d\d/,
    );
    expect(await card.textContent()).toContain("era legacy");
    // protocol: "legacy" never probed: no reason to give.
    expect(await page.locator('.server[data-server="watch"] .fallback').count()).toBe(0);
    await card.scrollIntoViewIfNeeded();
    await shot("servers-fallback");
  });

  it("reads a listed text resource, shown as text", async () => {
    await view("catalog");
    const item = page.locator('li.resource[data-uri="demo://resource/static/document/features.md"]');
    await item.locator("button.read").click();
    await item.locator(".result pre.text").waitFor({ timeout: 15_000 });
    expect(await item.locator(".result pre.text").textContent()).toContain("#");
  });

  it("reads a listed blob resource as a size and type line, never its bytes", async () => {
    // A session resource the tool registers (a gzip of a data: URL): a blob of application/gzip.
    await hub.callTool("mcp__everything__gzip-file-as-resource", {
      name: "hello.gz",
      data: "data:text/plain;base64,aGVsbG8gZnJvbSB0aGUgaW5zcGVjdG9y",
      outputType: "resourceLink",
    });
    await view("servers");
    await view("catalog"); // the view lists afresh each time it opens
    const item = page.locator("li.resource", { hasText: "hello.gz" });
    await item.waitFor({ timeout: 15_000 });
    await item.locator("button.read").click();
    await item.locator(".result .blob").waitFor({ timeout: 15_000 });
    expect(await item.locator(".result .blob").textContent()).toMatch(/^blob: \d+ bytes, application\/gzip$/);
    expect(await item.locator(".result img, .result pre").count()).toBe(0);
  });

  it("gets a prompt with its arguments from the form", async () => {
    const item = page.locator('li.prompt[data-server="everything"][data-prompt="args-prompt"]');
    await item.locator('input[name="city"]').fill("Lisbon");
    await item.locator("button.get").click();
    await item.locator(".message").first().waitFor({ timeout: 15_000 });
    expect(await item.locator(".message .role").first().textContent()).toBe("user");
    expect(await item.locator(".message pre.text").first().textContent()).toContain("Lisbon");
    await item.scrollIntoViewIfNeeded();
    await shot("catalog-read");
  });

  it("refuses a URI or a prompt the hub did not list, and an argument the prompt does not declare", async () => {
    // A template's expansion is a real resource of the server, but not a listed one.
    const unlisted = await post("/api/resource", {
      serverId: "everything",
      uri: "demo://resource/dynamic/text/1",
    });
    expect(unlisted.status).toBe(403);
    const file = await post("/api/resource", { serverId: "everything", uri: "file:///etc/passwd" });
    expect(file.status).toBe(403);
    const prompt = await post("/api/prompt", { serverId: "everything", name: "no-such-prompt" });
    expect(prompt.status).toBe(403);
    const arg = await post("/api/prompt", {
      serverId: "everything",
      name: "args-prompt",
      arguments: { city: "Oslo", extra: "x" },
    });
    expect(arg.status).toBe(400);
    // The same resource, listed: read.
    const listed = await post("/api/resource", {
      serverId: "everything",
      uri: "demo://resource/static/document/features.md",
    });
    expect(listed).toMatchObject({
      status: 200,
      body: { result: { contents: [{ mimeType: "text/markdown" }] } },
    });
  });

  it("runs a tool as a task: its status updates in the tasks view, then its result", async () => {
    await view("tools");
    const card = page.locator('[data-tool="mcp__everything__simulate-research-query"]');
    await card.locator('input[name="topic"]').fill("tide pools");
    await card.locator("button.as-task").click();
    await card.locator(".task-started").waitFor({ timeout: 15_000 });
    await view("tasks");
    const task = page.locator(".card.task", { hasText: "simulate-research-query" }).first();
    await task.locator(".task-status").waitFor({ timeout: 5_000 });
    await expect.poll(() => task.locator(".task-history li").count(), { timeout: 20_000 }).toBeGreaterThan(2);
    await shot("tasks");
    await task.locator(".result pre.text").waitFor({ timeout: 30_000 });
    expect(await task.locator(".task-status").textContent()).toBe("completed");
    expect(await task.locator(".result pre.text").first().textContent()).toContain("tide pools");
    const history = await task.locator(".task-history").textContent();
    expect(history).toMatch(/working: Gathering sources/);
    expect(history).toMatch(/working: (Analyzing|Synthesizing|Generating)/);
    expect(await task.locator("button.cancel-task").isHidden()).toBe(true);
  }, 60_000);

  it("cancels a running task from the tasks view", async () => {
    await view("tools");
    const card = page.locator('[data-tool="mcp__everything__simulate-research-query"]');
    await card.locator('input[name="topic"]').fill("to be cancelled");
    await card.locator("button.as-task").click();
    await card.locator(".task-started").waitFor({ timeout: 15_000 });
    const taskId = ((await card.locator(".task-started").textContent()) ?? "").split(" ")[1]!;
    await view("tasks");
    const task = page.locator(`.card.task[data-task="${taskId}"]`);
    await task.locator("button.cancel-task").click();
    await task.locator('.result.error[data-kind="unavailable"]').waitFor({ timeout: 20_000 });
    expect(await task.locator(".task-status").textContent()).toBe("cancelled");
    expect(await task.locator(".result.error").textContent()).toContain("task_cancelled");
  }, 60_000);

  it("puts a server's sampling request on the page; the tool sees the typed answer", async () => {
    await view("tools");
    const card = page.locator('[data-tool="mcp__everything__trigger-sampling-request"]');
    await card.locator('input[name="prompt"]').fill("what is a tide pool?");
    await card.locator("button.call").click();
    const dialog = page.locator(".dialog.sampling");
    await dialog.waitFor({ timeout: 15_000 });
    expect(await dialog.textContent()).toContain("what is a tide pool?");
    await dialog.locator("textarea").fill("a rocky pool left by the sea");
    await shot("sampling");
    await dialog.locator("button", { hasText: "Send" }).click();
    await card.locator(".result pre.text").waitFor({ timeout: 15_000 });
    expect(await card.locator(".result pre.text").textContent()).toContain("a rocky pool left by the sea");
    expect(await dialog.count()).toBe(0);
  });

  it("shows a killed and restarted HTTP server's reconnect in the live pane", async () => {
    await view("live");
    const port = watch.port;
    await watch.stop();
    const events = page.locator("#events");
    await expect.poll(() => events.textContent(), { timeout: 20_000 }).toMatch(/watch: ready → reconnecting/);
    watch = await startWatchServer(port, { stopSignal: "SIGKILL" });
    await expect.poll(() => events.textContent(), { timeout: 30_000 }).toMatch(/watch: \w+ → ready/);
    expect(hub.status().servers.watch?.state).toBe("ready");
    await events.scrollIntoViewIfNeeded();
    await shot("reconnect");
  }, 60_000);
});
