/**
 * One probe and one listing per fleet, the race a claim alone does not close: a client reads the
 * store (nothing yet), the client that held the claim writes its record and releases, and only
 * then does this client's claim land, free. Winning it is no reason to probe or list again: the
 * record is checked once more under the claim. The stores here show the store as that client saw
 * it: empty until it claimed, then holding what the first client wrote.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Client,
  type EraRecord,
  type EraStore,
  type ListCacheStore,
  type ListChangeListener,
  type ListKey,
  MemoryEraStore,
  MemoryListCacheStore,
  type StoredList,
} from "../src/index.js";
import { type RunningServer, startHttpFixture } from "./support/http-servers.js";

const FLEET_SERVER = fileURLToPath(new URL("./fixtures/fleet-server.mjs", import.meta.url));

/** An era store that reads empty until this client claims (the holder released meanwhile). */
class ClaimedLateEras implements EraStore {
  claimed = 0;
  constructor(readonly inner: MemoryEraStore) {}
  get(key: string): EraRecord | undefined {
    return this.claimed > 0 ? this.inner.get(key) : undefined;
  }
  set(key: string, record: EraRecord): void {
    this.inner.set(key, record);
  }
  delete(key: string): void {
    this.inner.delete(key);
  }
  async claim(): Promise<() => void> {
    this.claimed += 1;
    return () => {};
  }
}

/** The same for lists. */
class ClaimedLateLists implements ListCacheStore {
  claimed = 0;
  constructor(readonly inner: MemoryListCacheStore) {}
  get(key: ListKey): StoredList | undefined {
    return this.claimed > 0 ? this.inner.get(key) : undefined;
  }
  set(key: ListKey, list: StoredList, origin?: string): void {
    this.inner.set(key, list, origin);
  }
  delete(key: ListKey, origin: string): void {
    this.inner.delete(key, origin);
  }
  watch(listener: ListChangeListener): () => void {
    return this.inner.watch(listener);
  }
  async claim(): Promise<() => void> {
    this.claimed += 1;
    return () => {};
  }
}

let server: RunningServer;
beforeAll(async () => {
  server = await startHttpFixture(FLEET_SERVER, []);
}, 30_000);
afterAll(() => server?.stop());

const stats = async () =>
  (await (await fetch(`${server.origin}/admin/stats`)).json()) as {
    lists: Record<string, number>;
    discovers: Record<string, number>;
  };

function client(stores: { eras: EraStore; lists: ListCacheStore }): Client {
  return new Client({
    name: "race",
    serverId: "fleet",
    transport: { type: "http", url: server.url, auth: { bearer: "tok_alice_race" } },
    stores,
  });
}

describe("a claim won after the holder wrote and released", () => {
  it("neither probes nor lists again: the record is read once more under the claim", async () => {
    const eras = new MemoryEraStore();
    const lists = new MemoryListCacheStore();
    const first = client({ eras, lists });
    try {
      expect((await first.listAllTools()).map((t) => t.name)).toEqual(["echo"]);
    } finally {
      await first.close();
    }
    expect(await stats()).toMatchObject({ lists: { alice: 1 }, discovers: { alice: 1 } });

    const lateEras = new ClaimedLateEras(eras);
    const lateLists = new ClaimedLateLists(lists);
    const second = client({ eras: lateEras, lists: lateLists });
    try {
      expect((await second.listAllTools()).map((t) => t.name)).toEqual(["echo"]);
      expect(second.era()).toBe("modern");
    } finally {
      await second.close();
    }
    // It did claim both (it had read nothing), and still the server saw no second of either.
    expect(lateEras.claimed).toBe(1);
    expect(lateLists.claimed).toBe(1);
    expect(await stats()).toMatchObject({ lists: { alice: 1 }, discovers: { alice: 1 } });
  }, 30_000);
});
