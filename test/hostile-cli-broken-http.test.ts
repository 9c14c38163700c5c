/**
 * A server that answers with headers HTTP parsing refuses (thousands of them, a giant one) was
 * reported by the CLI as one that "could not be reached at --url": a hostile or broken server
 * passed for a network problem. The hint now says the server answered and names the parser's
 * code. Runs dist/cli/main.js: `npm run build` first.
 */
import { existsSync } from "node:fs";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "./support/cli.js";

const ANSWERS: Record<string, () => string> = {
  "5 000 headers": () => {
    let h = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n";
    for (let i = 0; i < 5_000; i++) h += `x-h${i}: v\r\n`;
    return `${h}\r\n{}`;
  },
  "a 200 KB header": () =>
    `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-big: ${"a".repeat(200_000)}\r\n\r\n{}`,
  // Parsed without a code of undici's own: told as could not be reached / no hint before.
  "an SSH banner for a status line": () => "SSH-2.0-OpenSSH_9.6\r\n\r\n",
  "a bad chunk size": () =>
    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nZZZ\r\n{}\r\n",
};

const servers: net.Server[] = [];
const ports: Record<string, number> = {};

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error("dist/cli/main.js is missing: run `npm run build` first");
  for (const [name, answer] of Object.entries(ANSWERS)) {
    const server = net.createServer((socket) => {
      socket.on("error", () => {});
      socket.once("data", () => socket.end(answer()));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(server);
    ports[name] = (server.address() as net.AddressInfo).port;
  }
});

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

describe("conduit-mcp --url against a server whose answer breaks HTTP", () => {
  it.each(Object.keys(ANSWERS))(
    "%s: it answered, and the hint says so",
    async (name) => {
      const run = await runCli([
        "tools",
        "--url",
        `http://127.0.0.1:${ports[name]}/mcp`,
        "--timeout",
        "5000",
      ]);
      expect(run.code).toBe(3);
      expect(run.stderr).toMatch(
        /(network_error|request_failed) \(the server at --url answered, but with a response that breaks HTTP \((HPE_[A-Z_]+|UND_ERR_[A-Z_]+|HTTP_PARSE_ERROR)\)\)/,
      );
      expect(run.stderr).not.toContain("could not be reached");
    },
    30_000,
  );

  it("a port nothing listens on still could not be reached", async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const run = await runCli(["tools", "--url", `http://127.0.0.1:${port}/mcp`, "--timeout", "5000"]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("could not be reached at --url");
  }, 30_000);
});
