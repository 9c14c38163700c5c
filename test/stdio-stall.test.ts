/**
 * Issue 23, "a server that stops reading its stdin": 48 MiB of requests go to a stalled pipe.
 * What the client holds for them stays within `maxWriteQueueBytes` (plus one message); the calls
 * over the cap fail `overloaded` / `write_queue_full` at once, the rest by their deadline, and the
 * client works again once the server reads. The payload is CJK text: three UTF-8 bytes to one
 * UTF-16 unit, so a queue counted in string units instead of bytes would hold three times the cap.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { McpClientError } from "../src/index.js";
import { closeAll, scriptedClient } from "./support/scripted.js";

afterEach(closeAll);
const dir = mkdtempSync(join(tmpdir(), "conduit-stall-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A full collection before each reading, so that what is counted is what is still referenced.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** This process's JavaScript heap and the memory outside it (Buffers), after a full collection. */
function held(): number {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

const MiB = 1024 * 1024;
const CAP = 16 * MiB; // the default maxWriteQueueBytes

describe("a server that stops reading its stdin", () => {
  it("48 MiB of requests: memory within the cap plus one message; over it overloaded at once, the rest by their deadline; then it recovers", async () => {
    const pidFile = join(dir, "pid");
    const c = scriptedClient({ pidFile }, { requestTimeout: 6000, maxInFlight: 100 });
    await c.ready();
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    await c.callTool("deaf", {});

    // 48 arguments of 1 MiB of UTF-8 each, made (and flattened) before the first reading: they are
    // the caller's, not what the client adds.
    const args = Array.from({ length: 48 }, (_, i) => ({ text: `${"字".repeat(MiB / 3 - 16)}${i}` }));
    for (const a of args) a.text.charCodeAt(0);
    const before = held();

    const settled = new Set<number>();
    const calls = args.map((a, i) =>
      c.callTool("echo", a).then(
        () => {
          settled.add(i);
          return "answered" as const;
        },
        (err: unknown) => {
          settled.add(i);
          return err;
        },
      ),
    );
    // Refusals come at once: before a turn of the event loop, long before any deadline.
    await new Promise((r) => setImmediate(r));
    const refused = [...settled];
    for (const i of refused) {
      expect(await calls[i]).toMatchObject({ kind: "overloaded", reason: "write_queue_full" });
    }
    // What was taken fits the cap: 1 MiB each, one more partly in the pipe.
    const accepted = args.length - refused.length;
    expect(accepted).toBeGreaterThanOrEqual(8);
    expect(accepted * MiB).toBeLessThanOrEqual(CAP + MiB);

    // Nothing of a refused call is kept (its serialised line), and the queue is not copied: the
    // client holds the cap's worth of bytes and one message more, not what was sent nor a copy.
    const grown = held() - before;
    expect(grown).toBeLessThanOrEqual(CAP + 2 * MiB);

    // The others end by their deadline, with nothing answered.
    const rest = await Promise.all(calls);
    const late = rest.filter((_, i) => !refused.includes(i));
    expect(late.every((e) => McpClientError.is(e, "timeout"))).toBe(true);

    // The server reads again: it works through the queue, and new calls are answered.
    process.kill(pid, "SIGUSR2");
    const r = await c.callTool("echo", { back: true }, { timeout: 20_000 });
    expect(r.isError).toBe(false);
    expect(c.status().state).toBe("ready");
  }, 60_000);
});
