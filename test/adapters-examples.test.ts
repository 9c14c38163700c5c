// The agent examples, run as users run them (`node examples/agent-*.mjs`, after `npm run build`),
// offline: without API keys each uses its scripted model against real servers from npm.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

async function runExample(name: string): Promise<string> {
  const env = { ...process.env };
  for (const key of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"]) delete env[key];
  const { stdout } = await promisify(execFile)(process.execPath, [`examples/${name}`], { cwd: root, env });
  return stdout;
}

describe.concurrent("agent examples (offline)", () => {
  it("agent-openai.mjs reads a file through server-filesystem", async () => {
    const out = await runExample("agent-openai.mjs");
    expect(out).toMatch(/^model: scripted; \d+ tools, \d+ strict$/m);
    expect(out).toMatch(/^tool call: read_text_file \{"path":".*todo\.txt"/m);
    expect(out).toContain('tool result (ok): [from tool "read_text_file" on MCP server "files"');
    expect(out).toMatch(/^assistant: The file says: 1\. water the plants 2\. call the plumber/m);
  });

  it("agent-anthropic.mjs adds and fetches an image through server-everything", async () => {
    const out = await runExample("agent-anthropic.mjs");
    expect(out).toContain('tool use: get-sum {"a":19,"b":23}');
    expect(out).toMatch(/tool result \(is_error: false\): text, text, image/);
    expect(out).toMatch(/^assistant: I got: The sum of 19 and 23 is 42\./m);
  });

  it("agent-ai-sdk.mjs chains two servers' tools through generateText", async () => {
    const out = await runExample("agent-ai-sdk.mjs");
    expect(out).toContain("tool result (ok) from mcp__files__read_text_file");
    expect(out).toContain('tool call: mcp__everything__get-sum {"a":19,"b":23}');
    expect(out).toMatch(/^assistant: The sum is 42\.$/m);
  });
});
