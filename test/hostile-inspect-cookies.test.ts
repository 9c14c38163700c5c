/**
 * Two inspectors open in one browser (two `conduit-mcp inspect` runs, a new user's everyday
 * case). Cookies are not kept per port, so one cookie name for every inspector let the second
 * replace the first's token: the first page's every request was refused (401) from then on.
 * Headless Chromium (playwright-core), real inspectors over hubs of in-memory servers.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Hub } from "../src/index.js";
import { Desk, type Inspector, startInspector } from "../src/inspect/index.js";
import { launchChromium } from "./support/chromium.js";
import { silentLogger } from "./support/index.js";
import { MemoryServer } from "./support/memory-server.js";

let browser: Browser;
const hubs: Hub[] = [];
const inspectors: Inspector[] = [];

async function inspector(name: string): Promise<Inspector> {
  const desk = new Desk();
  const logger = silentLogger();
  const hub = new Hub({
    name,
    logger,
    clientOptions: { logger, handler: desk.handler() },
    servers: {
      [name]: { transport: new MemoryServer({ tools: [{ name: "x", inputSchema: { type: "object" } }] }) },
    },
  });
  hubs.push(hub);
  const i = await startInspector({ hub, desk, hubName: name });
  inspectors.push(i);
  return i;
}

beforeAll(async () => {
  browser = await launchChromium();
}, 30_000);
afterAll(async () => {
  await browser?.close();
  for (const i of inspectors) await i.close();
  for (const h of hubs) await h.close();
});

it("a second inspector in the same browser leaves the first one working", async () => {
  const [a, b] = [await inspector("first"), await inspector("second")];
  const context = await browser.newContext();
  const pageA = await context.newPage();
  await pageA.goto(a.url);
  await pageA.waitForSelector("body[data-loaded=true]", { timeout: 30_000 });
  const pageB = await context.newPage();
  await pageB.goto(b.url);
  await pageB.waitForSelector("body[data-loaded=true]", { timeout: 30_000 });
  const servers = (p: typeof pageA) =>
    p.evaluate(async () => {
      const r = await fetch("/api/servers");
      const ids = r.ok ? ((await r.json()) as Array<{ id: string }>).map((s) => s.id) : null;
      return { status: r.status, ids };
    });
  // Before: 401 for the first page (the browser now sent it the second inspector's token).
  expect(await servers(pageA)).toEqual({ status: 200, ids: ["first"] });
  expect(await servers(pageB)).toEqual({ status: 200, ids: ["second"] });
  // A reload (no token in the address any more) still loads.
  await pageA.reload();
  await pageA.waitForSelector("body[data-loaded=true]", { timeout: 30_000 });
  // Each inspector's own cookie, HttpOnly, one per port.
  const cookies = await context.cookies();
  const names = cookies.map((c) => c.name).sort();
  expect(names).toEqual([`conduit_inspect_${a.port}`, `conduit_inspect_${b.port}`].sort());
  expect(cookies.every((c) => c.httpOnly && c.sameSite === "Strict")).toBe(true);
  // The wrong token under this port's name is still refused, whatever else is sent.
  const wrong = await fetch(`${new URL(a.url).origin}/api/servers`, {
    headers: {
      cookie: `conduit_inspect_${a.port}=wrong; conduit_inspect_${b.port}=${new URL(b.url).searchParams.get("token")}`,
    },
  });
  expect(wrong.status).toBe(401);
  await context.close();
}, 60_000);
