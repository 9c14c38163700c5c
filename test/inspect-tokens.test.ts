// What a tool list costs each model API, as the inspector reports it: counted with js-tiktoken
// (an optional peer) when it is installed, else a rough estimate marked as one. The second file
// half makes the import fail as Node fails it for a package that is not installed.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Inspector } from "../src/inspect/index.js";
import { silentLogger } from "./support/index.js";
import { MemoryServer } from "./support/memory-server.js";

const description = "Reads a file and returns its text. ".repeat(20);

async function toolsPage(): Promise<{
  tokenCount: string;
  manifests: Record<string, { tokens: unknown }>;
  tools: Array<{ tokens: Record<string, unknown> }>;
}> {
  // Imported afresh for each test: the token counter keeps its encoder once loaded.
  const { Hub } = await import("../src/index.js");
  const { Desk, startInspector } = await import("../src/inspect/index.js");
  const logger = silentLogger();
  const desk = new Desk();
  const hub = new Hub({
    name: "inspect-tokens",
    logger,
    clientOptions: { logger, handler: desk.handler() },
    servers: {
      fs: {
        transport: new MemoryServer({
          tools: [
            {
              name: "read",
              description,
              inputSchema: { type: "object", properties: { path: { type: "string" } } },
            },
          ],
        }),
      },
    },
  });
  let inspector: Inspector | undefined;
  try {
    inspector = await startInspector({ hub, desk, hubName: "inspect-tokens" });
    const u = new URL(inspector.url);
    const token = u.searchParams.get("token")!;
    const res = await fetch(`${u.protocol}//${u.host}/api/tools`, {
      headers: { cookie: `conduit_inspect=${token}` },
    });
    expect(res.status).toBe(200);
    return (await res.json()) as never;
  } finally {
    await inspector?.close();
    await hub.close();
  }
}

describe("the inspector's token figures", () => {
  afterEach(() => {
    vi.doUnmock("js-tiktoken/lite");
    vi.resetModules();
  });

  it("counted with js-tiktoken when it is installed", async () => {
    const page = await toolsPage();
    expect(page.tokenCount).toBe("tiktoken");
    expect(page.manifests.openai!.tokens).toEqual(expect.any(Number));
    expect(page.tools[0]!.tokens.openai).toEqual(expect.any(Number));
  });

  it("without js-tiktoken: a rough estimate (a token per four characters), said to be one", async () => {
    vi.resetModules();
    vi.doMock("js-tiktoken/lite", () => {
      const err = new Error("Cannot find package 'js-tiktoken' imported from conduit-mcp") as Error & {
        code?: string;
      };
      err.code = "ERR_MODULE_NOT_FOUND";
      throw err;
    });
    const page = await toolsPage();
    expect(page.tokenCount).toBe("estimate");
    const tokens = page.manifests.openai!.tokens as number;
    // The description alone is 700 characters: about 175 tokens, more with the schema and names.
    expect(tokens).toBeGreaterThan(175);
    expect(tokens).toBeLessThan(400);
    expect(page.tools[0]!.tokens.openai).toEqual(expect.any(Number));
  });
});
