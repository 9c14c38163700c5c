// serve's fast path for tools/call over stdio (src/serve/stdio-fast.ts) with raw lines to the
// built CLI in front of the official server fixture, both eras: ids of every JSON-RPC type, error
// frames, a cancelled call left unanswered and audited, a line that is not JSON answered with a
// parse error (the server keeps serving), and what the SDK keeps (progress) still working.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { CLI } from "./support/cli.js";
import { OFFICIAL_SERVER, waitFor } from "./support/index.js";

const MODERN = "2026-07-28";
const envelope = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
};

interface Frame {
  id?: unknown;
  method?: string;
  result?: Record<string, unknown> & { content?: Array<{ text?: string }> };
  error?: { code: number; message: string };
  params?: Record<string, unknown>;
}

function start(audit: string) {
  const child: ChildProcess = spawn(
    process.execPath,
    [CLI, "serve", "--audit", audit, "--", process.execPath, OFFICIAL_SERVER, "dual"],
    { stdio: ["pipe", "pipe", "ignore"] },
  );
  const frames: Frame[] = [];
  createInterface({ input: child.stdout! }).on("line", (l) => frames.push(JSON.parse(l) as Frame));
  const send = (m: unknown) => child.stdin!.write(`${typeof m === "string" ? m : JSON.stringify(m)}\n`);
  const answer = async (id: unknown) => {
    await waitFor(() => frames.some((f) => f.id === id && f.method === undefined), 10_000);
    return frames.find((f) => f.id === id && f.method === undefined)!;
  };
  return { child, frames, send, answer };
}

describe("serve's fast path for tools/call over stdio", () => {
  let dir = "";
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.stdin?.end();
    child?.kill();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("a 2025 host: ids of every type, error frames, a parse error, a cancellation, progress", async () => {
    dir = mkdtempSync(join(tmpdir(), "serve-fast-"));
    const audit = join(dir, "audit.jsonl");
    const s = start(audit);
    child = s.child;
    s.send({
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    expect((await s.answer("init")).result?.protocolVersion).toBe("2025-11-25");
    s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    for (const id of [1, 0, -3, "x", ""]) {
      s.send({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "echo", arguments: { message: `m${id}` } },
      });
    }
    for (const id of [1, 0, -3, "x", ""]) {
      const f = await s.answer(id);
      expect(f.result?.content?.[0]?.text).toBe(`m${id}`);
      expect(f.result?.resultType).toBeUndefined();
    }
    s.send({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "nothing" } });
    expect((await s.answer(7)).error?.code).toBe(-32602);
    s.send('{"jsonrpc":"2.0","id":8,"method":"tools/call"');
    await waitFor(() => s.frames.some((f) => f.error?.code === -32700), 5_000);
    expect(s.frames.find((f) => f.error?.code === -32700)).toMatchObject({
      id: null,
      error: { message: "Parse error" },
    });
    // An id no answer could carry: an invalid-request error (the SDK alone dropped it silently).
    for (const id of [9.5, null, true, { a: 1 }]) {
      const before = s.frames.filter((f) => f.error?.code === -32600).length;
      s.send({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "echo", arguments: { message: "x" } },
      });
      await waitFor(() => s.frames.filter((f) => f.error?.code === -32600).length > before, 5_000);
    }
    s.send({
      jsonrpc: "2.0",
      id: 9,
      method: "tools/call",
      params: { name: "echo", arguments: { message: "nine" } },
    });
    expect((await s.answer(9)).result?.content?.[0]?.text).toBe("nine");

    s.send({
      jsonrpc: "2.0",
      id: "slow",
      method: "tools/call",
      params: { name: "slow", arguments: { steps: 50, every: 100 } },
    });
    await new Promise((r) => setTimeout(r, 300));
    s.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "slow" } });
    await waitFor(() => readFileSync(audit, "utf8").includes('"tool":"slow"'), 5_000);
    const line = JSON.parse(readFileSync(audit, "utf8").trim().split("\n").at(-1)!);
    expect(line).toMatchObject({ tool: "slow" });
    expect(line.outcome).not.toBe("ok");
    expect(s.frames.some((f) => f.id === "slow")).toBe(false);

    s.send({
      jsonrpc: "2.0",
      id: 10,
      method: "tools/call",
      params: { name: "slow", arguments: { steps: 2, every: 10 }, _meta: { progressToken: "p" } },
    });
    await s.answer(10);
    expect(s.frames.filter((f) => f.method === "notifications/progress").length).toBeGreaterThan(0);
  }, 30_000);

  it("a 2026-07-28 host: results stamped as the SDK does, errors, the envelope checked", async () => {
    dir = mkdtempSync(join(tmpdir(), "serve-fast-"));
    const s = start(join(dir, "audit.jsonl"));
    child = s.child;
    s.send({ jsonrpc: "2.0", id: 0, method: "server/discover", params: { _meta: envelope } });
    expect((await s.answer(0)).result?.supportedVersions).toContain(MODERN);
    for (const id of [1, "a"]) {
      s.send({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "echo", arguments: { message: "hi" }, _meta: envelope },
      });
      const f = await s.answer(id);
      expect(f.result).toMatchObject({ resultType: "complete", isError: false, content: [{ text: "hi" }] });
      expect(
        (f.result?._meta as Record<string, unknown> | undefined)?.["io.modelcontextprotocol/serverInfo"],
      ).toBeDefined();
    }
    s.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "nothing", _meta: envelope } });
    expect((await s.answer(2)).error?.code).toBe(-32602);
    const bad = { ...envelope, "io.modelcontextprotocol/protocolVersion": 5 };
    s.send({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "echo", arguments: { message: "x" }, _meta: bad },
    });
    expect((await s.answer(3)).error?.code).toBe(-32602);
  }, 30_000);
});
