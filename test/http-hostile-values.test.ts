/**
 * Responses and values a hostile HTTP server sends that must be refused, not trusted (issue 9),
 * in both eras: malformed responses, `Retry-After` nonsense, credentials echoed back into what
 * an error keeps. Each with its typed error, and a client that keeps working.
 */
import { randomBytes } from "node:crypto";
import type http from "node:http";
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import type { McpClientError } from "../src/index.js";
import { TOKEN_VALUE } from "./support/http-clients.js";
import {
  json,
  type ScriptedHttpServer,
  type SeenRequest,
  sse,
  startScripted,
} from "./support/http-scripted.js";
import { onRpc, scriptedSuite } from "./support/http-suite.js";

let server: ScriptedHttpServer;
const { clients, expectWorking, rejection } = scriptedSuite("http-hostile", () => server);

const ERAS = ["modern", "legacy"] as const;

async function readyClient(era: "modern" | "legacy", options = {}) {
  server = await startScripted({ era });
  const c = clients.create(server.url, {}, { requestTimeout: 60_000, ...options });
  await c.ready();
  return c;
}

describe.each(ERAS)("malformed responses over HTTP (%s)", (era) => {
  const bodies: Array<[string, (id: unknown) => unknown]> = [
    [
      "both result and error",
      (id) => ({ jsonrpc: "2.0", id, result: { content: [] }, error: { code: 1, message: "x" } }),
    ],
    ["error.code not an integer", (id) => ({ jsonrpc: "2.0", id, error: { code: "-32000", message: "x" } })],
    ["result: null", (id) => ({ jsonrpc: "2.0", id, result: null })],
  ];
  it.each(bodies)("%s, as a JSON body: protocol / malformed_response at once", async (_n, body) => {
    const c = await readyClient(era);
    server.on(onRpc("tools/call", (req, res) => json(res, 200, body(req.body?.id)), 1));
    const err = await rejection(c.callTool("echo", {}));
    expect(err).toMatchObject({ kind: "protocol", reason: "malformed_response" });
    await expectWorking(c);
  });

  it.each(bodies)("%s, on an event stream: protocol / malformed_response at once", async (_n, body) => {
    const c = await readyClient(era);
    server.on(onRpc("tools/call", (req, res) => sse(res, [{ data: body(req.body?.id) }]), 1));
    const err = await rejection(c.callTool("echo", {}));
    expect(err).toMatchObject({ kind: "protocol", reason: "malformed_response" });
    await expectWorking(c);
  });
});

describe.each(ERAS)("Retry-After (%s)", (era) => {
  const cases: Array<[string, number | null]> = [
    ["-1", null],
    ["+5", null],
    ["1.5", null],
    ["12345678901234567890123", Number.MAX_SAFE_INTEGER],
    ["0", 0],
    ["7", 7],
  ];
  it.each(cases)("Retry-After: %s gives retryAfter %s", async (header, expected) => {
    const c = await readyClient(era);
    server.on(onRpc("tools/call", (_req, res) => json(res, 429, undefined, { "retry-after": header }), 1));
    const err = await rejection(c.callTool("echo", {}));
    expect(err).toMatchObject({ kind: "rate_limited", data: { status: 429, retryAfter: expected } });
    await expectWorking(c);
  });
});

describe.each(ERAS)("credentials echoed back are scrubbed from everything an error keeps (%s)", (era) => {
  /** Every text an error carries: its message, JSON, inspected form, data and cause. */
  function everything(err: McpClientError): string {
    return [
      err.message,
      JSON.stringify(err),
      JSON.stringify(err.data),
      inspect(err, { depth: 20, showHidden: true }),
      inspect(err.data, { depth: 20 }),
    ].join("\n");
  }

  const echoes: Array<[string, (token: string) => (req: SeenRequest, res: http.ServerResponse) => void]> = [
    [
      "WWW-Authenticate on a 401",
      (token) => (_req, res) =>
        json(res, 401, undefined, {
          "www-authenticate": `Bearer realm="${token}", error_description="bad token ${token}"`,
        }),
    ],
    [
      "a JSON-RPC error's data on a 200",
      (token) => (req, res) =>
        json(res, 200, {
          jsonrpc: "2.0",
          id: req.body?.id,
          error: {
            code: -32000,
            message: `you sent ${token}`,
            data: { echo: token, deep: [{ again: `x${token}y` }] },
          },
        }),
    ],
    [
      "a JSON-RPC error's data on a 400",
      (token) => (req, res) =>
        json(res, 400, {
          jsonrpc: "2.0",
          id: req.body?.id,
          error: { code: -32602, message: "bad", data: { [token]: token } },
        }),
    ],
  ];

  it.each(echoes)("%s: the token given as a Secret", async (_n, echo) => {
    const c = await readyClient(era);
    server.on(onRpc("tools/call", echo(TOKEN_VALUE), 1));
    const err = await rejection(c.callTool("echo", {}));
    expect(everything(err)).not.toContain(TOKEN_VALUE);
    expect(everything(err)).toContain("[secret]");
    await expectWorking(c);
  });

  it.each(echoes)("%s: the token given as a plain string", async (_n, echo) => {
    const token = `plain_${randomBytes(12).toString("hex")}`;
    server = await startScripted({ era });
    const c = clients.create(server.url, { auth: { bearer: token } });
    await c.ready();
    server.on(onRpc("tools/call", echo(token), 1));
    const err = await rejection(c.callTool("echo", {}));
    expect(everything(err)).not.toContain(token);
    await expectWorking(c);
  });

  it.each(echoes)("%s: the token returned by an auth function", async (_n, echo) => {
    const token = `fn_${randomBytes(12).toString("hex")}`;
    server = await startScripted({ era });
    const c = clients.create(server.url, { auth: () => token });
    await c.ready();
    server.on(onRpc("tools/call", echo(token), 1));
    const err = await rejection(c.callTool("echo", {}));
    expect(everything(err)).not.toContain(token);
    await expectWorking(c);
  });
});
