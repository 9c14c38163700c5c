import { afterEach, describe, expect, it } from "vitest";
import { Client, Secret, subscribe } from "../src/index.js";
import { EVENT_NAMES } from "../src/telemetry/index.js";
import { FakeServer } from "../src/testing/index.js";
import { unexpectedKeys } from "./support/events.js";
import { closeAll, recordEvents, scriptedClient } from "./support/scripted.js";

afterEach(closeAll);

describe("telemetry", () => {
  it("every event carries only the allowlisted metadata; no arguments, results, _meta or secrets", async () => {
    const secret = new Secret("very-secret-token-42");
    const rec = recordEvents(...EVENT_NAMES);
    const c = scriptedClient({}, { serverId: "srv" }, { env: { TOKEN: secret } });
    await c.callTool("echo", { password: secret.reveal(), note: "payload-marker" });
    await c.callTool("late", { ms: 300 }, { timeout: 50 }).catch(() => {});
    await c.callTool("unknown-id", {});
    await c.close();
    rec.stop();
    expect(rec.events.length).toBeGreaterThan(8);
    for (const e of rec.events) {
      expect(unexpectedKeys(e), `${String(e.event)}`).toEqual([]);
      expect(e).toMatchObject({ client: "scripted", serverId: "srv", transport: "stdio" });
    }
    const all = JSON.stringify(rec.events);
    expect(all).not.toContain("payload-marker");
    expect(all).not.toContain("very-secret-token-42");
    expect(all).not.toContain("_meta");
    const stops = rec.of("tool_call:stop");
    expect(stops.map((s) => s.status)).toEqual(["ok", "error", "ok"]);
    expect(stops[1]).toMatchObject({ errorKind: "timeout", isError: null });
    expect(rec.of("connection:transition").map((e) => e.to)).toEqual(["discovering", "ready", "closed"]);
  });

  it("payload capture passes arguments and results through redact, with the size cap", async () => {
    const rec = recordEvents("tool_call:start", "tool_call:stop");
    const c = scriptedClient(
      {},
      {
        telemetry: {
          capturePayloads: {
            redact: (p) => {
              const v = p as Record<string, unknown>;
              return "content" in v ? { isError: v.isError } : { ...v, password: "[redacted]" };
            },
            maxBytes: 64,
          },
        },
      },
    );
    await c.callTool("echo", { password: "hunter2", user: "ada" });
    await c.callTool("echo", { big: "x".repeat(200) });
    rec.stop();
    const starts = rec.of("tool_call:start");
    expect(starts[0]!.arguments).toEqual({ password: "[redacted]", user: "ada" });
    expect(starts[1]!.arguments).toMatchObject({ truncated: expect.any(Number) });
    expect(rec.of("tool_call:stop")[0]!.result).toEqual({ isError: false });
  });

  it("a redactor that throws or returns a Secret gives redaction_failed", async () => {
    const rec = recordEvents("tool_call:start");
    const bad = scriptedClient(
      {},
      {
        telemetry: {
          capturePayloads: {
            redact: () => {
              throw new Error("x");
            },
          },
        },
      },
    );
    await bad.callTool("echo", {});
    const secretive = scriptedClient(
      {},
      { telemetry: { capturePayloads: { redact: () => ({ token: new Secret("leaky-secret-value") }) } } },
    );
    await secretive.callTool("echo", {});
    rec.stop();
    expect(rec.of("tool_call:start").map((e) => e.arguments)).toEqual([
      "redaction_failed",
      "redaction_failed",
    ]);
    expect(JSON.stringify(rec.events)).not.toContain("leaky-secret-value");
  });

  it("subscribe refuses unknown events and unsubscribes", async () => {
    expect(() => subscribe("nope" as never, () => {})).toThrow(TypeError);
    const heard: unknown[] = [];
    const kept: unknown[] = [];
    const off = subscribe("connection:transition", (e) => heard.push(e));
    const keep = subscribe("connection:transition", (e) => kept.push(e));
    off();
    const c = new Client({
      name: "unsubscribed",
      transport: { type: "in-process", server: new FakeServer() },
    });
    await c.ready();
    await c.close();
    keep();
    // The events were published (the listener still subscribed heard them); the other heard none.
    expect(kept.length).toBeGreaterThan(0);
    expect(heard).toEqual([]);
  });
});
