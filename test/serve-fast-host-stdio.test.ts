// serve's fast path for real hosts over stdio (src/serve/stdio-fast.ts, fast-host.ts), with raw
// lines to the built CLI in front of test/fixtures/serve-rounds-server.mjs (the official server
// SDK; it asks "Who?", then reports progress): a 2025 host that declared elicitation gets the
// upstream's question as an `elicitation/create` on the same stream (serve's own string id: the
// fast path's, the SDK numbers its own), and hostile lines on the way (not JSON, a response to a
// request never sent, a wrong id) change nothing; a 2026-07-28 host gets the `input_required`
// round and the progress of its retry.
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { CLI } from "./support/cli.js";
import { waitFor } from "./support/index.js";

const ROUNDS = fileURLToPath(new URL("./fixtures/serve-rounds-server.mjs", import.meta.url));
const MODERN = "2026-07-28";

interface Frame {
  id?: unknown;
  method?: string;
  result?: Record<string, unknown> & { content?: Array<{ text?: string }> };
  error?: { code: number; message: string };
  params?: Record<string, unknown>;
}

function start(upstreamEra: "legacy" | "dual") {
  const child: ChildProcess = spawn(
    process.execPath,
    [CLI, "serve", "--", process.execPath, ROUNDS, upstreamEra],
    {
      stdio: ["pipe", "pipe", "ignore"],
    },
  );
  const frames: Frame[] = [];
  createInterface({ input: child.stdout! }).on("line", (l) => frames.push(JSON.parse(l) as Frame));
  const send = (m: unknown) => child.stdin!.write(`${typeof m === "string" ? m : JSON.stringify(m)}\n`);
  const find = async (match: (f: Frame) => boolean) => {
    await waitFor(() => frames.some(match), 10_000);
    return frames.find(match)!;
  };
  const answer = (id: unknown) => find((f) => f.id === id && f.method === undefined);
  return { child, frames, send, find, answer };
}

const progressOf = (frames: Frame[], token: string) =>
  frames
    .filter((f) => f.method === "notifications/progress" && f.params?.progressToken === token)
    .map((f) => f.params?.progress);

describe("serve's fast path for hosts that can be asked (stdio)", () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.stdin?.end();
    child?.kill();
  });

  it("a 2025 host with elicitation: asked on the same stream, hostile lines ignored, progress after", async () => {
    const s = start("legacy");
    child = s.child;
    s.send({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: { elicitation: { form: {} } },
        clientInfo: { name: "raw", version: "1" },
      },
    });
    await s.answer(0);
    s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    s.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "ask_then_progress", arguments: {}, _meta: { progressToken: "p1" } },
    });
    const q = await s.find((f) => f.method === "elicitation/create");
    expect(q.id).toMatch(/^conduit-\d+$/);
    expect(q.params).toMatchObject({ message: "Who?" });

    // Hostile lines first: not JSON, responses to requests never sent, a wrong id.
    s.send("{not json");
    await s.find((f) => f.error?.code === -32700);
    s.send({ jsonrpc: "2.0", id: "conduit-424242", result: { action: "accept", content: { name: "Eve" } } });
    s.send({ jsonrpc: "2.0", id: 424242, result: { action: "accept", content: { name: "Eve" } } });
    s.send({ jsonrpc: "2.0", id: `${q.id as string}x`, error: { code: -1, message: "no" } });
    await new Promise((r) => setTimeout(r, 200));
    expect(s.frames.some((f) => f.id === 1)).toBe(false);

    s.send({ jsonrpc: "2.0", id: q.id, result: { action: "accept", content: { name: "Ada" } } });
    const r = await s.answer(1);
    expect(r.result?.content?.[0]?.text).toBe("hello Ada");
    expect(progressOf(s.frames, "p1")).toEqual([1, 2, 3]);
    // The same answer again (a replay) is a response to nothing: still serving.
    s.send({ jsonrpc: "2.0", id: q.id, result: { action: "accept", content: { name: "Eve" } } });
    s.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "roots_changed", arguments: {} } });
    expect((await s.answer(2)).result?.content?.[0]?.text).toBe("0");
  }, 30_000);

  it("a 2025 host answering its question with an error gets a tool error", async () => {
    const s = start("legacy");
    child = s.child;
    s.send({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: { elicitation: {} },
        clientInfo: { name: "raw", version: "1" },
      },
    });
    await s.answer(0);
    s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    s.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "ask_then_progress", arguments: {} },
    });
    const q = await s.find((f) => f.method === "elicitation/create");
    s.send({ jsonrpc: "2.0", id: q.id, error: { code: -32601, message: "not here" } });
    const r = await s.answer(1);
    expect(r.result?.isError).toBe(true);
    expect(r.result?.content?.[0]?.text).toMatch(/failed: not here/);
  }, 30_000);

  it("a 2026-07-28 host with elicitation: the input_required round, then its retry's progress", async () => {
    const s = start("dual");
    child = s.child;
    const envelope = {
      "io.modelcontextprotocol/protocolVersion": MODERN,
      "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
      "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    };
    s.send({ jsonrpc: "2.0", id: 0, method: "server/discover", params: { _meta: envelope } });
    await s.answer(0);
    s.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "ask_then_progress", arguments: {}, _meta: { ...envelope, progressToken: "p1" } },
    });
    const first = await s.answer(1);
    expect(first.result).toMatchObject({
      resultType: "input_required",
      inputRequests: { who: { method: "elicitation/create", params: { message: "Who?" } } },
    });
    expect(typeof first.result?.requestState).toBe("string");
    s.send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: {
        name: "ask_then_progress",
        arguments: {},
        inputResponses: { who: { action: "accept", content: { name: "Ada" } } },
        requestState: first.result?.requestState,
        _meta: { ...envelope, progressToken: "p2" },
      },
    });
    const done = await s.answer(2);
    expect(done.result).toMatchObject({ resultType: "complete", content: [{ text: "hello Ada" }] });
    expect([...new Set(progressOf(s.frames, "p2"))]).toEqual([1, 2, 3]);
  }, 30_000);
});
