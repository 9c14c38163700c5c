import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Client, type InProcessServer, type JsonRpcMessage, type Transport } from "../src/index.js";
import { FakeServer } from "../src/testing/index.js";

/**
 * Issue 23, "the host process": no promise the library makes may reject with nobody listening.
 * Under Node's default `--unhandled-rejections=throw` one such rejection ends the host process.
 * Every rejection that reaches the process is recorded here and fails the test that caused it
 * (Vitest would report it too, but only once the file has run).
 */
const unhandled: unknown[] = [];
const trap = (reason: unknown) => {
  unhandled.push(reason);
};
beforeAll(() => {
  process.on("unhandledRejection", trap);
});
afterAll(() => {
  process.off("unhandledRejection", trap);
});
// What escapes after a test's own check (a late timer, a close still running) fails it too.
afterEach(async () => {
  await settleRejections();
  expect(unhandled).toEqual([]);
});

/** Lets Node report what is left unhandled: it does so after the microtasks of a macrotask. */
async function settleRejections(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
}

/**
 * A FakeServer whose every message, both ways, is delivered when the scheduler says: requests,
 * answers, progress and the hang-up race the client's own steps. `die` hangs up on its caller.
 */
function scheduledServer(s: fc.Scheduler): InProcessServer {
  const server = new FakeServer()
    .tool("work", { type: "object" }, async (_args, ctx) => {
      ctx.progress(1, 2);
      return "done";
    })
    .tool("die", { type: "object" }, () => "never")
    .resource("file:///r", () => "r");
  server.fail("die", { close: true });
  return {
    serveInProcess(peer) {
      const session = server.serveInProcess({
        send: (m) => void s.schedule(Promise.resolve(), "answer").then(() => peer.send(m)),
        close: () => void s.schedule(Promise.resolve(), "hang up").then(() => peer.close()),
      });
      return {
        receive: (m: JsonRpcMessage) =>
          void s.schedule(Promise.resolve(), "request").then(() => session.receive(m)),
        close: () => session.close(),
      };
    },
  };
}

type Step =
  | { kind: "call"; timeout: boolean }
  | { kind: "cancel"; which: number }
  | { kind: "list"; abortedBefore: boolean }
  | { kind: "read" }
  | { kind: "subscribe" }
  | { kind: "kill" }
  | { kind: "reconnect" }
  | { kind: "close" };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("call" as const), timeout: fc.boolean() }),
  fc.record({ kind: fc.constant("cancel" as const), which: fc.nat() }),
  fc.record({ kind: fc.constant("list" as const), abortedBefore: fc.boolean() }),
  fc.record({ kind: fc.constant("read" as const) }),
  fc.record({ kind: fc.constant("subscribe" as const) }),
  fc.record({ kind: fc.constant("kill" as const) }),
  fc.record({ kind: fc.constant("reconnect" as const) }),
  fc.record({ kind: fc.constant("close" as const) }),
);

describe("no unhandled rejection, ever", () => {
  it("reconnect, close, cancel and answers raced in every order: nothing rejects unheard", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.constantFrom("modern" as const, "legacy" as const),
        fc.array(step, { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        async (s, protocol, steps, health) => {
          unhandled.length = 0;
          const client = new Client({
            name: "races",
            transport: { type: "in-process", server: scheduledServer(s) },
            protocol,
            backoff: () => 1,
            // Health checks on a short interval: their answers wait for the scheduler too.
            ...(health ? { healthCheckInterval: 5 } : {}),
            logger: { warn: () => {} },
          });
          await s.waitFor(client.ready());
          const controllers: AbortController[] = [];
          // The caller hears every outcome of its own calls: what is left is the library's.
          const outcomes: Array<Promise<unknown>> = [];
          const heard = (p: Promise<unknown>) =>
            outcomes.push(
              p.then(
                () => "ok",
                () => "failed",
              ),
            );
          const run = (st: Step) => {
            switch (st.kind) {
              case "call": {
                const controller = new AbortController();
                controllers.push(controller);
                const timeout = st.timeout ? { timeout: 5 } : {};
                return heard(
                  client.callTool(
                    "work",
                    {},
                    { signal: controller.signal, onProgress: () => {}, ...timeout },
                  ),
                );
              }
              case "cancel":
                return controllers[st.which % Math.max(1, controllers.length)]?.abort(new Error("cancelled"));
              case "list": {
                const controller = new AbortController();
                controllers.push(controller);
                if (st.abortedBefore) controller.abort(new Error("cancelled before"));
                return heard(client.listAllTools({ refresh: true, signal: controller.signal }));
              }
              case "read":
                return heard(client.readResource("file:///r"));
              case "subscribe":
                return heard(client.subscribe("file:///r"));
              case "kill":
                return heard(client.callTool("die", {}));
              case "reconnect":
                return heard(client.reconnect());
              case "close":
                return heard(client.close());
            }
          };
          const started = steps.map((st) => s.schedule(Promise.resolve(), st.kind).then(() => run(st)));
          await s.waitFor(Promise.all(started));
          // Closed in the end by the test if not by a step; what is still in flight fails then.
          await s.waitFor(Promise.all([client.close(), ...outcomes]));
          await s.waitIdle();
          await settleRejections();
          expect(unhandled).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  }, 120_000);

  it("a transport whose send rejects a notification: cancelling a call over it rejects nothing unheard", async () => {
    unhandled.length = 0;
    const inner = new FakeServer().tool("hang", { type: "object" }, () => new Promise(() => {}));
    // The in-process transport, with a send that refuses notifications/cancelled asynchronously
    // (a Transport's send may return a promise).
    const { InProcessTransport } = await import("../src/transport/in-process.js");
    const base = new InProcessTransport({ type: "in-process", server: inner });
    const transport: Transport = {
      kind: "custom",
      start: (sink) => base.start(sink),
      send: (m) => {
        if ("method" in m && m.method === "notifications/cancelled")
          return Promise.reject(new Error("refused"));
        return base.send(m);
      },
      close: () => base.close(),
    };
    const client = new Client({ name: "cancel-send", transport, logger: { warn: () => {} } });
    await client.ready();
    const controller = new AbortController();
    const call = client.callTool("hang", {}, { signal: controller.signal });
    await new Promise((r) => setImmediate(r));
    controller.abort(new Error("stop"));
    await expect(call).rejects.toThrow("stop");
    await client.close();
    await settleRejections();
    expect(unhandled).toEqual([]);
  });

  it("an input handler that answers a legacy server request with a hostile object: the server hears an internal error, nothing rejects unheard", async () => {
    unhandled.length = 0;
    // Every read of it throws it again: whatever the client reads of the answer, or of the error.
    const hostile: object = new Proxy(
      {},
      {
        get() {
          throw hostile;
        },
      },
    );
    const server = new FakeServer().tool("ask", { type: "object" }, (_args, ctx) =>
      JSON.stringify(ctx.inputResponses),
    );
    server.fail("ask", {
      inputRequests: {
        pick: {
          method: "elicitation/create",
          params: { message: "Pick", requestedSchema: { type: "object", properties: {} } },
        },
      },
    });
    const client = new Client({
      name: "hostile-answer",
      transport: { type: "in-process", server },
      protocol: "legacy",
      handler: { elicitation: () => hostile as never },
      logger: { warn: () => {} },
    });
    const result = await client.callTool("ask", {});
    // The server's request got an error answer (the fake server passes it on as the input response).
    expect(JSON.stringify(result.content)).toContain("-32603");
    await client.close();
    await settleRejections();
    expect(unhandled).toEqual([]);
  });
});
