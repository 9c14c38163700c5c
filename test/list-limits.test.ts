/**
 * The caps on a walk over every page (`maxListItems`, `maxListPages`): a scripted stdio server
 * listing more than the default cap fails typed, and lists in full once the option is raised,
 * on a client and through a hub (per server, and as the hub's client defaults).
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client, Hub, McpClientError, OptionError } from "../src/index.js";
import { closeAll, scriptedClient, scriptedTransport } from "./support/scripted.js";

afterEach(closeAll);

/** 11 pages of 1 000 tools: over the 10 000-item cap, within the 100-page one. */
const ELEVEN_THOUSAND = { pages: { count: 11, size: 1000 } };
/** 101 pages of one tool: over the 100-page cap, within the item cap. */
const HUNDRED_AND_ONE_PAGES = { pages: { count: 101, size: 1 } };

describe("maxListItems and maxListPages", () => {
  it("11 000 tools: max_items by default, all of them with maxListItems raised", async () => {
    const capped = scriptedClient(ELEVEN_THOUSAND);
    const err = await capped.listAllTools().catch((e) => e);
    expect(err).toBeInstanceOf(McpClientError);
    expect(err).toMatchObject({ kind: "pagination_cycle", reason: "max_items" });

    const raised = scriptedClient(ELEVEN_THOUSAND, { maxListItems: 20_000 });
    const tools = await raised.listAllTools();
    expect(tools).toHaveLength(11_000);
    expect(tools.at(-1)?.name).toBe("t10999");
  }, 30_000);

  it("101 pages: max_pages by default, all of them with maxListPages raised", async () => {
    const capped = scriptedClient(HUNDRED_AND_ONE_PAGES);
    await expect(capped.listAllTools()).rejects.toMatchObject({
      kind: "pagination_cycle",
      reason: "max_pages",
    });
    const raised = scriptedClient(HUNDRED_AND_ONE_PAGES, { maxListPages: 101 });
    expect(await raised.listAllTools()).toHaveLength(101);
  }, 30_000);

  it("a lowered cap holds too: 3 pages of 2 with maxListItems 5 and with maxListPages 2", async () => {
    const config = { pages: { count: 3, size: 2 } };
    await expect(scriptedClient(config, { maxListItems: 5 }).listAllTools()).rejects.toMatchObject({
      reason: "max_items",
    });
    await expect(scriptedClient(config, { maxListPages: 2 }).listAllTools()).rejects.toMatchObject({
      reason: "max_pages",
    });
    expect(await scriptedClient(config, { maxListItems: 6, maxListPages: 3 }).listAllTools()).toHaveLength(6);
  }, 30_000);

  it.each([0, -1, 1.5, "100", Number.NaN, Number.POSITIVE_INFINITY, null])(
    "a bad value (%s) is an OptionError naming the option",
    (bad) => {
      for (const option of ["maxListItems", "maxListPages"]) {
        const make = () => new Client({ name: "x", transport: scriptedTransport(), [option]: bad as never });
        expect(make).toThrow(OptionError);
        expect(make).toThrow(expect.objectContaining({ option, problem: "invalid" }));
      }
    },
  );
});

describe("through a hub", () => {
  let hub: Hub | undefined;
  afterEach(async () => {
    await hub?.close();
    hub = undefined;
  });

  it("per server and as the hub's client defaults: the capped server is left out, the raised one listed", async () => {
    hub = new Hub({
      servers: {
        capped: { transport: scriptedTransport(ELEVEN_THOUSAND) },
        raised: { transport: scriptedTransport(ELEVEN_THOUSAND), client: { maxListItems: 11_000 } },
        paged: { transport: scriptedTransport(HUNDRED_AND_ONE_PAGES) },
      },
      clientOptions: { maxListPages: 101, logger: { warn: () => {} } },
      logger: { warn: () => {} },
      listTimeout: 20_000,
    });
    await hub.ready({ timeout: 20_000 });
    const { tools, servers } = await hub.listToolsDetailed();
    const count = (server: string) => tools.filter((t) => t.serverId === server).length;
    expect(count("capped")).toBe(0);
    expect(count("raised")).toBe(11_000);
    expect(count("paged")).toBe(101);
    expect(servers.capped).toMatchObject({ status: "failed", error: { reason: "max_items" } });
    expect(servers.raised).toMatchObject({ status: "ok", count: 11_000 });
  }, 60_000);

  it("a bad value on one server is a TypeError naming the server and the option", () => {
    expect(
      () =>
        new Hub({
          servers: { a: { transport: scriptedTransport(), client: { maxListItems: 0 } } },
        }),
    ).toThrow(/server "a".*maxListItems/);
  });
});
