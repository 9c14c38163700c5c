// A stdio server's stderr is passed on to this process's stderr (`stderr: "inherit"`, the
// default) with every live Secret scrubbed: a server given a token in its environment that prints
// it (a debug dump, a failed request's URL) does not put it on the user's terminal, whether the
// token comes in one write, split across two, or on a line that never ends. Through the library
// (this process's stderr captured) and through the CLI with a config file's `${env:...}` value.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Client } from "../src/index.js";
import { Secret } from "../src/index.js";
import { runCli } from "./support/cli.js";
import { waitFor } from "./support/index.js";
import { SCRIPTED, scriptedClient } from "./support/scripted.js";

const TOKEN = "sk-live-4f9a27c1e8d3b650";
/** The scripted server's config for the CLI, which calls only listed tools. */
const LISTS_STDERR = JSON.stringify({ tools: [{ name: "stderr", inputSchema: { type: "object" } }] });

describe("a stdio server's stderr, passed on", () => {
  let written: Array<string | Uint8Array>;
  let client: Client | undefined;
  const shown = () =>
    written.map((w) => (typeof w === "string" ? w : Buffer.from(w).toString("utf8"))).join("");

  beforeEach(() => {
    written = [];
    const real = process.stderr.write.bind(process.stderr);
    vi.spyOn(process.stderr, "write").mockImplementation(((
      chunk: string | Uint8Array,
      ...rest: unknown[]
    ) => {
      written.push(chunk);
      // Only what the test server says is swallowed; vitest's own output still goes out.
      if (!String(chunk).includes("from-server")) return real(chunk, ...(rest as []));
      return true;
    }) as typeof process.stderr.write);
  });
  afterEach(async () => {
    await client?.close();
    client = undefined;
    vi.restoreAllMocks();
  });

  async function connect(env: Array<[string, string | Secret]>) {
    client = scriptedClient({}, {}, { stderr: "inherit", env });
    await client.ready();
    return client;
  }

  it("scrubs a secret of the server's environment, in one write, split in two, and on an open line", async () => {
    const c = await connect([["API_TOKEN", new Secret(TOKEN)]]);
    await c.callTool("stderr", { text: "from-server whole: ", env: "API_TOKEN" });
    // The token's first half in one write, the rest (and the line's end) in the next.
    await c.callTool("stderr", { text: `from-server split: ${TOKEN.slice(0, 9)}`, newline: false });
    await c.callTool("stderr", { text: `${TOKEN.slice(9)} done` });
    // A line that never ends (a prompt) is shown anyway, a moment later, scrubbed.
    await c.callTool("stderr", { text: "from-server open: ", env: "API_TOKEN", newline: false });
    await waitFor(() => shown().includes("open: "), 5_000);
    const text = shown();
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(TOKEN.slice(0, 9));
    expect(text).toContain("from-server whole: [secret]\n");
    expect(text).toContain("from-server split: [secret] done\n");
    expect(text).toContain("from-server open: [secret]");
  });

  it("passes other text on unchanged, a line that never ends included", async () => {
    const c = await connect([["PLAIN", "just-a-value"]]);
    await c.callTool("stderr", { text: "from-server plain ", env: "PLAIN", newline: false });
    await waitFor(() => shown().includes("from-server plain just-a-value"), 5_000);
    await c.callTool("stderr", { text: "from-server émoji 🙂 line" });
    await waitFor(() => shown().includes("from-server émoji 🙂 line\n"), 5_000);
  });
});

describe("the CLI with a config file whose server prints its token to stderr", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "conduit-stderr-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("never shows the value the file builds from a variable", async () => {
    const config = join(dir, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          chatty: {
            command: process.execPath,
            args: [SCRIPTED, LISTS_STDERR],
            // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's own syntax
            env: { API_TOKEN: "${env:CHATTY_TOKEN}" },
          },
        },
      }),
    );
    const run = await runCli(
      [
        "call",
        "stderr",
        JSON.stringify({ text: "debug: token=", env: "API_TOKEN" }),
        "--config",
        config,
        "--server",
        "chatty",
      ],
      { env: { CHATTY_TOKEN: TOKEN } },
    );
    expect(run.stdout + run.stderr).not.toContain(TOKEN);
    expect(run.stderr).toContain("debug: token=[secret]");
  }, 30_000);
});
