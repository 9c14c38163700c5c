/** The inspector of a hub opened in headless Chromium, as the browser tests drive it. */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import type { Hub } from "../../src/index.js";
import { type Desk, type Inspector, startInspector } from "../../src/inspect/index.js";
import { launchChromium } from "./chromium.js";

/** Screenshots land here (kept out of git), for a person to look at after a run. */
const SHOTS = resolve(import.meta.dirname, "../../test-output/inspect");

export interface InspectorPage {
  browser: Browser;
  inspector: Inspector;
  page: Page;
  /** A screenshot of the viewport, `test-output/inspect/<name>.png`. */
  shot(name: string): Promise<Buffer>;
  /** Opens one of the page's views by its tab. */
  view(name: string): Promise<void>;
  close(): Promise<void>;
}

/** Starts the hub's inspector and opens its page, loaded, in a fresh browser. */
export async function openInspectorPage(hub: Hub, desk: Desk, hubName: string): Promise<InspectorPage> {
  mkdirSync(SHOTS, { recursive: true });
  const browser = await launchChromium();
  let inspector: Inspector | undefined;
  try {
    inspector = await startInspector({ hub, desk, hubName });
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    await page.goto(inspector.url);
    await page.waitForSelector("body[data-loaded=true]", { timeout: 30_000 });
    const opened = inspector;
    return {
      browser,
      inspector: opened,
      page,
      shot: (name) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false }),
      view: (name) => page.click(`#tabs button[data-view="${name}"]`),
      close: async () => {
        await browser.close();
        await opened.close();
      },
    };
  } catch (err) {
    await browser.close();
    await inspector?.close();
    throw err;
  }
}
