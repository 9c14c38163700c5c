// The inspector's page in real headless Chromium (Debian's package, driven by playwright-core)
// over three real servers from npm: server-filesystem and server-everything over stdio, the
// official server over HTTP; plus an in-process scripted server whose tools change on cue and
// whose tool description is hostile HTML. Screenshots of each view go to test-output/inspect/.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Hub } from "../src/index.js";
import { Desk } from "../src/inspect/index.js";
import { HTTP_OFFICIAL, type RunningServer, startHttpFixture } from "./support/http-servers.js";
import { everythingServer, FILESYSTEM_SERVER, nodeServer, silentLogger } from "./support/index.js";
import { INPUT_OFFICIAL } from "./support/input.js";
import { type InspectorPage, openInspectorPage } from "./support/inspect-page.js";
import { MemoryServer } from "./support/memory-server.js";

const HOSTILE = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">';

describe("inspect in a real browser", () => {
  let dir: string;
  let http: RunningServer;
  let hub: Hub;
  let opened: InspectorPage;
  let page: Page;
  const live = new MemoryServer({
    tools: [{ name: "x", description: HOSTILE, inputSchema: { type: "object" } }],
  });
  const shot = (name: string) => opened.shot(name);
  const view = (name: string) => opened.view(name);

  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "inspect-")));
    writeFileSync(join(dir, "a.txt"), "hello");
    http = await startHttpFixture(HTTP_OFFICIAL, ["dual"]);
    const desk = new Desk();
    const logger = silentLogger();
    hub = new Hub({
      name: "inspect-browser",
      logger,
      clientOptions: { logger, handler: desk.handler(), requestTimeout: 20_000 },
      listTimeout: 10_000,
      governance: {
        policy: [{ server: "docs", tool: "add", decision: "ask", reason: "adding needs a person" }],
        approve: desk.approve,
        hookTimeout: 60_000,
      },
      servers: {
        fs: { transport: nodeServer(FILESYSTEM_SERVER, [dir]) },
        everything: { transport: everythingServer() },
        docs: { transport: { type: "http", url: http.url } },
        live: { transport: live },
        input: { transport: nodeServer(INPUT_OFFICIAL, ["dual"]) },
      },
    });
    await hub.ready({ timeout: 30_000 });
    opened = await openInspectorPage(hub, desk, "inspect-browser");
    ({ page } = opened);
  }, 90_000);

  afterAll(async () => {
    await opened?.close();
    await hub?.close();
    await http?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("loads with the token as a cookie, dropped from the address bar, and lists all servers", async () => {
    expect(new URL(page.url()).search).toBe("");
    for (const id of ["fs", "everything", "docs", "live"]) {
      await expect(page.locator(`.server[data-server="${id}"] h3`).textContent()).resolves.toContain(
        "(ready)",
      );
    }
    await expect(page.locator('.server[data-server="docs"]').textContent()).resolves.toContain(
      "official-http-dual",
    );
    await shot("servers");
  });

  it("renders a hostile tool description inert, as text", async () => {
    await view("tools");
    const card = page.locator('[data-tool="mcp__live__x"]');
    expect(await card.locator(".description").textContent()).toBe(HOSTILE);
    expect(await card.locator("script, img").count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
  });

  it("calls echo from the form generated from its schema and shows the answer", async () => {
    await view("tools");
    const card = page.locator('[data-tool="mcp__everything__echo"]');
    await card.locator('input[name="message"]').fill("hello from the page");
    await card.locator("button.call").click();
    await card.locator(".result pre.text").waitFor({ timeout: 20_000 });
    expect(await card.locator(".result pre.text").textContent()).toContain("hello from the page");
    expect(await card.locator(".badge").first().textContent()).toMatch(/OpenAI strict|changed/);
    await card.scrollIntoViewIfNeeded();
    await shot("tools");
  });

  it("shows the long-running tool's progress and cancels it on the wire", async () => {
    const card = page.locator('[data-tool="mcp__everything__trigger-long-running-operation"]');
    await card.locator('input[name="duration"]').fill("30");
    await card.locator('input[name="steps"]').fill("30");
    await card.locator("button.call").click();
    await expect
      .poll(() => card.locator(".progress-note").textContent(), { timeout: 20_000 })
      .toMatch(/[1-9]\d* \/ 30/);
    expect(Number(await card.locator("progress").getAttribute("max"))).toBe(30);
    await card.scrollIntoViewIfNeeded();
    await shot("progress");
    await card.locator("button.cancel").click();
    await card.locator('.result.error[data-kind="cancelled"]').waitFor({ timeout: 10_000 });
    // On the wire: the client sent notifications/cancelled (telemetry's request:cancel, in the live pane).
    await expect
      .poll(() => page.locator("#events").textContent(), { timeout: 5_000 })
      .toContain("everything: request:cancel tools/call");
  });

  it("shows a list_changed live: the new tool, and a badge on the changed one", async () => {
    live.tools = [
      { name: "x", description: "now harmless", inputSchema: { type: "object" } },
      { name: "added", description: "a tool that came later", inputSchema: { type: "object" } },
    ];
    live.listChanged();
    await page.locator('[data-tool="mcp__live__added"]').waitFor({ timeout: 15_000 });
    await page.locator('[data-tool="mcp__live__x"] .badge.changed').waitFor({ timeout: 5_000 });
    await view("live");
    await page.locator("#events li.list-changed").first().waitFor({ timeout: 5_000 });
    expect(await page.locator("#timeline .row").count()).toBeGreaterThan(0);
    await shot("live");
  });

  it("puts an ask rule's approval on the page and runs the call once allowed", async () => {
    await view("tools");
    const card = page.locator('[data-tool="mcp__docs__add"]');
    await card.locator('input[name="a"]').fill("2");
    await card.locator('input[name="b"]').fill("3");
    await card.locator("button.call").click();
    const dialog = page.locator(".dialog.approval");
    await dialog.waitFor({ timeout: 15_000 });
    expect(await dialog.textContent()).toContain("adding needs a person");
    expect(await dialog.textContent()).toContain('{"a":2,"b":3}');
    await shot("approval");
    await dialog.locator("button.allow").click();
    await card.locator(".result pre.text").waitFor({ timeout: 15_000 });
    expect(await card.locator(".result pre.text").textContent()).toBe("5");
    expect(await dialog.count()).toBe(0);
  });

  it("puts a server's form elicitation on the page and sends the answer back", async () => {
    await view("tools");
    const card = page.locator('[data-tool="mcp__input__ask_form"]');
    await card.locator("button.call").click();
    const dialog = page.locator(".dialog.elicitation");
    await dialog.waitFor({ timeout: 15_000 });
    expect(await dialog.textContent()).toContain("Who are you?");
    await dialog.locator('input[name="name"]').fill("Ada");
    await shot("elicitation");
    await dialog.locator("button.call").click();
    await card.locator(".result pre.text").waitFor({ timeout: 15_000 });
    expect(await card.locator(".result pre.text").textContent()).toBe("accept");
    expect(await card.locator(".result").textContent()).toContain('"name": "Ada"');
  });

  it("shows a URL elicitation as a link with its host and an IDN warning, never opened by the page", async () => {
    const card = page.locator('[data-tool="mcp__input__ask_url"]');
    const pagesBefore = page.context().pages().length;
    await card.locator('input[name="url"]').fill("https://xn--pple-43d.com/login");
    await card.locator("button.call").click();
    const dialog = page.locator(".dialog.elicitation");
    await dialog.waitFor({ timeout: 15_000 });
    const link = dialog.locator("a.link");
    expect(await link.textContent()).toBe("https://xn--pple-43d.com/login");
    expect(await link.getAttribute("href")).toBe("https://xn--pple-43d.com/login");
    expect(await link.getAttribute("target")).toBe("_blank");
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer");
    expect(await link.getAttribute("referrerpolicy")).toBe("no-referrer");
    expect(await dialog.textContent()).toContain("IDN host");
    // Shown, not followed: no tab was opened and the page is where it was.
    expect(page.context().pages().length).toBe(pagesBefore);
    expect(new URL(page.url()).hostname).toBe("127.0.0.1");
    await dialog.locator("button", { hasText: "Decline" }).click();
    await card.locator(".result pre.text").waitFor({ timeout: 15_000 });
    expect(await card.locator(".result pre.text").textContent()).toBe("decline");
  });

  it("searches all tools from the search box", async () => {
    await page.fill("#search", "long running operation progress");
    await page.locator("#search-results .hit").first().waitFor({ timeout: 10_000 });
    expect(await page.locator("#search-results .hit").first().textContent()).toContain(
      "mcp__everything__trigger-long-running-operation",
    );
  });

  it("marks a result the tool reports as failed (isError) apart from a protocol error", async () => {
    await view("tools");
    const card = page.locator('[data-tool="mcp__fs__read_text_file"]');
    await card.locator('input[name="path"]').fill("/definitely/not/allowed.txt");
    await card.locator("button.call").click();
    await card.locator(".result.error .is-error").waitFor({ timeout: 20_000 });
    // The tool's own text is still shown, as text, under the mark; no error kind (not a failed call).
    expect(await card.locator(".result.error pre.text").textContent()).toMatch(/denied|outside|not allowed/i);
    expect(await card.locator(".result.error").getAttribute("data-kind")).toBeNull();
  });

  it("renders an image result only as a data: URL of its image/* type", async () => {
    const card = page.locator('[data-tool="mcp__everything__get-tiny-image"]');
    await card.locator("button.call").click();
    await card.locator(".result img").waitFor({ timeout: 20_000 });
    const src = await card.locator(".result img").getAttribute("src");
    expect(src).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/=]+$/);
    // Decoded by the browser: a real image, not a broken one.
    await expect
      .poll(() =>
        card.locator(".result img").evaluate((i) => (i as unknown as { naturalWidth: number }).naturalWidth),
      )
      .toBeGreaterThan(0);
  });

  it("shows structured content beside the text, from an enum chosen in the form", async () => {
    const card = page.locator('[data-tool="mcp__everything__get-structured-content"]');
    const select = card.locator('select[name="location"]');
    await select.selectOption({ label: '"Chicago"' });
    await card.locator("button.call").click();
    const details = card.locator(".result details", { hasText: "structured content" });
    await details.waitFor({ timeout: 20_000 });
    const shown = JSON.parse((await details.locator("pre").textContent()) ?? "null");
    expect(Object.keys(shown).sort()).toEqual(["conditions", "humidity", "temperature"]);
    expect(typeof shown.temperature).toBe("number");
  });

  it("preselects an enum's schema default, and the call sends it", async () => {
    const card = page.locator('[data-tool="mcp__everything__get-resource-reference"]');
    const select = card.locator('select[name="resourceType"]');
    expect(await select.locator("option:checked").textContent()).toBe('"Text"');
    // Without a default nothing is preselected.
    const other = page.locator('[data-tool="mcp__everything__get-annotated-message"]');
    expect(await other.locator('select[name="messageType"] option:checked').textContent()).toBe("—");
    await card.locator("button.call").click();
    await card.locator(".result").waitFor({ timeout: 20_000 });
    await expect
      .poll(() => card.locator(".result").textContent(), { timeout: 20_000 })
      .toContain("text/plain");
    expect(await card.locator(".result.error").count()).toBe(0);
  });

  it("shows a server's log messages in the live pane", async () => {
    const card = page.locator('[data-tool="mcp__everything__toggle-simulated-logging"]');
    await card.locator("button.call").click();
    await card.locator(".result").waitFor({ timeout: 20_000 });
    await view("live");
    await page.locator("#events li.log").first().waitFor({ timeout: 30_000 });
    expect(await page.locator("#events li.log").first().textContent()).toMatch(/everything: log \w+/);
    await view("tools");
    await card.locator("button.call").click(); // off again, so the rest of the page stays quiet
  });

  it("shows the resources, templates and prompts view", async () => {
    await view("catalog");
    await expect.poll(() => page.locator("#resources li").count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await shot("catalog");
  });
});
