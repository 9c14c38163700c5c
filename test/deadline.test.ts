import { afterEach, describe, expect, it, vi } from "vitest";
import { Client, McpClientError } from "../src/index.js";
import { Deadline } from "../src/shared/deadline.js";
import { FakeServer } from "../src/testing/index.js";
// @ts-expect-error a plain .mjs fixture without types
import { define } from "./fixtures/fake-server-def.mjs";
import { watch } from "./support/async.js";
import { closeAll, scriptedClient } from "./support/scripted.js";

afterEach(closeAll);

describe("Deadline", () => {
  it("counts down from its timeout; a pause stops the clock, never past the cap", () => {
    const d = new Deadline(100, 300, 1000);
    expect(d.remaining(1040)).toBe(60);
    const resume = d.pause(1050);
    // Paused: only the cap (start + max(timeout, maxTotalTimeout)) can end it.
    expect(d.remaining(1200)).toBe(100);
    resume(1250);
    expect(d.remaining(1250)).toBe(50); // 200 ms paused were added: the end moved to 1300
    const again = d.pause(1260);
    again(5000);
    expect(d.end).toBe(1300); // never past the cap
    expect(d.expired(1300)).toBe(true);
  });

  it("pauses nest, and progress extends it to at most the cap", () => {
    const d = new Deadline(100, 250, 0);
    const a = d.pause(10);
    const b = d.pause(20);
    a(30);
    expect(d.paused).toBe(true);
    b(60);
    expect(d.end).toBe(150);
    d.extend(120);
    expect(d.end).toBe(220);
    d.extend(200);
    expect(d.end).toBe(250);
  });
});

describe("subscribe() spends one deadline", () => {
  it("the wait for ready and the acknowledgment share the caller's timeout (not twice it)", async () => {
    // The server answers the probe 600 ms late, so ready comes at least 600 ms after the call;
    // the acknowledgment comes 900 ms after the listen. Within one 1 000 ms deadline it cannot
    // arrive in time; with a fresh timeout after ready (the old defect) it did. (Lower bounds
    // only: a loaded machine makes both later, never sooner.)
    const c = scriptedClient({ era: "modern", ackDelay: 900, discoverDelay: 600 }, {});
    const err = await c.subscribe("file:///a.txt", { timeout: 1000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpClientError);
    expect((err as McpClientError).kind).toBe("timeout");
  });

  it("without a timeout, the acknowledgment is awaited for requestTimeout (not 60 s)", async () => {
    // The server acknowledges 3 s after the listen; requestTimeout is 400 ms. The old fallback
    // (60 000 ms) waited for the late acknowledgment and resolved.
    const c = scriptedClient({ era: "modern", ackDelay: 3000 }, { requestTimeout: 400 });
    // ready() gets its own generous timeout: a loaded machine may take longer than 400 ms to
    // start the server, and only the subscribe's wait is under test.
    await c.ready({ timeout: 30_000 });
    const err = await c.subscribe("file:///a.txt").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpClientError);
    expect((err as McpClientError).kind).toBe("timeout");
    expect((err as McpClientError).reason).toBe("not_acknowledged");
  });
});

describe("one deadline timer per connection", () => {
  const fake = (): FakeServer => define(FakeServer);
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  function hanging(times: number): Client {
    const server = fake().fail("echo", { hang: true }, { times });
    const c = new Client({
      name: "deadlines",
      transport: { type: "in-process", server },
      logger: { warn: () => {} },
    });
    clients.push(c);
    return c;
  }

  it("a short deadline behind a long one still ends first (the timer moves sooner)", async () => {
    const c = hanging(2);
    await c.ready();
    const long = c.callTool("echo", { message: "long" }, { timeout: 60_000 });
    long.catch(() => {});
    // Were the one timer left at the long call's end, this would wait a minute (the test fails).
    await expect(c.callTool("echo", { message: "short" }, { timeout: 100 })).rejects.toMatchObject({
      kind: "timeout",
    });
    const state = await Promise.race([
      long.then(
        () => "settled",
        () => "settled",
      ),
      Promise.resolve("pending"),
    ]);
    expect(state).toBe("pending");
  });

  it("deadlines end in the order they fall, whatever order the calls were made in", async () => {
    const c = hanging(3);
    await c.ready();
    const order: number[] = [];
    const calls = [300, 100, 200].map((timeout) =>
      c.callTool("echo", { message: String(timeout) }, { timeout }).catch((e: unknown) => {
        expect(McpClientError.is(e, "timeout")).toBe(true);
        order.push(timeout);
      }),
    );
    await Promise.all(calls);
    expect(order).toEqual([100, 200, 300]);
    // The connection's timer goes on serving later calls.
    expect((await c.callTool("echo", { message: "after" })).isError).toBe(false);
  });
});

describe("an MRTR call spends one deadline across its rounds", () => {
  it("progress that restarts the timeout in one round moves the deadline the next round sees", async () => {
    // Round 1 takes 600 ms against a 300 ms timeout, kept alive by progress every 50 ms
    // (resetTimeoutOnProgress, no onProgress). Then it asks for roots; round 2 answers at once.
    // In process on a fake clock: the server's 50 ms and the client's deadline are the same time.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    // When the loop kept a deadline of its own, only an onProgress callback moved it: round 2
    // was refused with timeout although the call was alive.
    const server = new FakeServer({ name: "mrtr-deadline" }).tool(
      "slow-ask",
      { type: "object" },
      async (_a, ctx) => {
        if (ctx.inputResponses !== undefined) return "answered";
        for (let i = 1; i <= 12; i++) {
          await new Promise((r) => setTimeout(r, 50));
          ctx.progress(i, 12);
        }
        return { resultType: "input_required", inputRequests: { r: { method: "roots/list" } } };
      },
    );
    const c = new Client({
      name: "mrtr-deadline",
      transport: { type: "in-process", server },
      handler: { listRoots: () => ({ roots: [] }) },
      logger: { warn: () => {} },
    });
    try {
      const call = watch(c.callTool("slow-ask", {}, { timeout: 300, resetTimeoutOnProgress: true }));
      // 50 ms at a time, with a turn of the loop for what the in-process pipes do between.
      while (!call.settled) {
        await vi.advanceTimersByTimeAsync(50);
        await new Promise((resolve) => setImmediate(resolve));
      }
      const result = await call.promise;
      expect(result.content).toEqual([{ type: "text", text: "answered" }]);
      expect(server.callsOf("tools/call")).toHaveLength(2);
    } finally {
      vi.useRealTimers();
      await c.close();
    }
  });
});

describe("a timeout past setTimeout's ceiling, or none", () => {
  /** A tool that asks for roots once; the handler answers after `answerAfter` ms. */
  function askingClient(answerAfter: number, onAsked: () => void = () => {}) {
    const server = new FakeServer({ name: "long-timeout" }).tool(
      "ask",
      { type: "object" },
      async (_a, ctx) => {
        if (ctx.inputResponses !== undefined) return "answered";
        return { resultType: "input_required", inputRequests: { r: { method: "roots/list" } } };
      },
    );
    const client = new Client({
      name: "long-timeout",
      transport: { type: "in-process", server },
      handler: {
        listRoots: async () => {
          onAsked();
          await new Promise((r) => setTimeout(r, answerAfter));
          return { roots: [] };
        },
      },
      logger: { warn: () => {} },
    });
    return { server, client };
  }

  it("an input round under a 3e9 ms timeout is not cut short (a timer past the ceiling would fire at once)", async () => {
    const { client } = askingClient(30);
    try {
      const result = await client.callTool("ask", {}, { timeout: 3_000_000_000 });
      expect(result.content).toEqual([{ type: "text", text: "answered" }]);
    } finally {
      await client.close();
    }
  });

  it("timeout: Infinity is no time limit of the library's: rounds run, and the caller's signal ends it", async () => {
    const { client } = askingClient(30);
    try {
      const result = await client.callTool("ask", {}, { timeout: Number.POSITIVE_INFINITY });
      expect(result.content).toEqual([{ type: "text", text: "answered" }]);
      let asked!: () => void;
      const askedNow = new Promise<void>((r) => {
        asked = r;
      });
      // The handler takes a minute: only the caller's signal ends the call, while it is asked.
      const slow = askingClient(60_000, () => asked());
      try {
        const abort = new AbortController();
        const call = slow.client.callTool(
          "ask",
          {},
          { timeout: Number.POSITIVE_INFINITY, signal: abort.signal },
        );
        const reason = new Error("stop");
        await askedNow;
        abort.abort(reason);
        await expect(call).rejects.toBe(reason);
      } finally {
        await slow.client.close();
      }
    } finally {
      await client.close();
    }
  });

  it("a timeout that is not a positive integer or Infinity is an OptionError naming both", async () => {
    const { client } = askingClient(0);
    try {
      for (const timeout of [0, -1, 1.5, Number.NaN, Number.NEGATIVE_INFINITY, "60"]) {
        await expect(client.callTool("ask", {}, { timeout: timeout as number })).rejects.toMatchObject({
          name: "TypeError",
          option: "timeout",
          message: expect.stringContaining("Infinity"),
        });
      }
    } finally {
      await client.close();
    }
  });
});
