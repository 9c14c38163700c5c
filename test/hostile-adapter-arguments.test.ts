/**
 * A model that sends arguments nested thousands of levels deep (valid JSON, which JSON.parse
 * reads at any depth) through the adapters, against the official server over stdio: the model is
 * told its arguments are too deep, nothing is sent, and the client keeps working.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { toAnthropicToolResult } from "../src/adapters/anthropic.js";
import { answerToolSearch, toOpenAIToolMessage } from "../src/adapters/openai.js";
import { portableToolSearch } from "../src/adapters/tool-search.js";
import { Client } from "../src/index.js";

const OFFICIAL = fileURLToPath(new URL("./fixtures/official-server.mjs", import.meta.url));
let client: Client;

beforeAll(async () => {
  client = new Client({
    name: "hostile-args",
    serverId: "files",
    transport: { type: "stdio", command: process.execPath, args: [OFFICIAL, "modern"] },
  });
  await client.ready({ timeout: 15_000 });
}, 20_000);
afterAll(() => client?.close());

const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;

it("arguments nested deeper than 64 levels are the model's mistake, named, and never sent", async () => {
  for (const levels of [65, 5_000, 200_000]) {
    const text = `{"message": "x", "extra": ${nested(levels)}}`;
    const m = await toOpenAIToolMessage(client, {
      id: "c1",
      type: "function",
      function: { name: "echo", arguments: text },
    });
    // Before: 5 000 and 200 000 levels passed every check and failed in JSON.stringify: "The
    // tool call failed (transport): transport: send_failed", which a model reads as try again.
    expect(m.content).toContain("nest deeper than 64 levels");
    expect(m.content).not.toContain("transport");
    const a = await toAnthropicToolResult(client, {
      type: "tool_use",
      id: "t1",
      name: "echo",
      input: JSON.parse(text),
    });
    expect(a.is_error).toBe(true);
    expect(JSON.stringify(a.content)).toContain("nest deeper than 64 levels");
    const p = await portableToolSearch(client).call_tool.execute({
      name: "echo",
      arguments: JSON.parse(text),
    });
    expect(p.errorKind).toBe("invalid_arguments");
  }
  // 64 levels is still a call (the server sees it: echo answers with the message).
  const ok = await toOpenAIToolMessage(client, {
    id: "c2",
    type: "function",
    function: { name: "echo", arguments: `{"message": "fine", "extra": ${nested(63)}}` },
  });
  expect(ok.content).toContain("fine");
  expect((await client.callTool("echo", { message: "still here" })).content).toEqual([
    { type: "text", text: "still here" },
  ]);
});

it("call_tool input that is not JSON is said to be so; megabytes of search arguments are not parsed", async () => {
  const p = portableToolSearch(client);
  for (const input of ['{"name": "echo", "arguments": {"message": "hi"', "echo please"]) {
    const r = await p.call_tool.execute(input);
    // Before: read as {} and answered "There is no tool named """ (unknown_tool).
    expect(r.errorKind).toBe("invalid_arguments");
    expect(JSON.stringify(r.content)).toContain("not valid JSON");
  }
  const huge = JSON.stringify({ name: "echo", arguments: { message: "x".repeat(2 * 1024 * 1024) } });
  expect((await p.call_tool.execute(huge)).errorKind).toBe("invalid_arguments");
  // The same call as an object still runs.
  const ok = await p.call_tool.execute('{"name": "echo", "arguments": {"message": "hi"}}');
  expect(ok.isError).toBe(false);
  // A search whose JSON text is 100 KB (the query is cut to 1 000 characters anyway).
  const padded = JSON.stringify({ query: "echo", pad: "y".repeat(100_000) });
  const out = await answerToolSearch(client, { call_id: "s1", arguments: padded });
  // Before: parsed whole, and echo found.
  expect(out.tools).toEqual([]);
  expect(await p.search_tools.execute(padded)).toEqual({
    error: "The search arguments are too long: send a short query.",
  });
  const found = await answerToolSearch(client, { call_id: "s2", arguments: '{"query": "echo"}' });
  expect(found.tools.map((t) => t.name)).toContain("echo");
});
