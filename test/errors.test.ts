/** `McpClientError.serverMessage()`: the server's own words, safe to show, never in `message`. */

import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { McpClientError, Secret } from "../src/index.js";
import { ERROR_REASONS } from "../src/shared/error-reasons.js";
import { ERROR_KINDS } from "../src/shared/errors.js";
import { ClientPool, officialServer, uniqueName } from "./support/index.js";

const pool = new ClientPool();
afterAll(() => pool.closeAll());

describe("McpClientError.serverMessage()", () => {
  it("gives the official server's message for an unknown tool, which message and toJSON leave out", async () => {
    // callUnlistedTools: the call reaches the server, whose own message is the point here.
    const client = pool.create({
      name: uniqueName(),
      transport: officialServer("dual"),
      callUnlistedTools: true,
    });
    const err = await client.callTool("nope", {}, { timeout: 10_000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(McpClientError.is(err, "protocol")).toBe(true);
    const e = err as McpClientError;
    expect(e.serverMessage()).toMatch(/nope/);
    expect(e.message).not.toMatch(/nope/);
    expect(JSON.stringify(e)).not.toMatch(/nope/);
    expect(e.serverMessage(3)).toHaveLength(3);
  });

  it("is one line without control characters, clamped, with live secrets redacted", () => {
    const secret = new Secret("s3cr3t-value-123");
    const e = new McpClientError(
      "protocol",
      "jsonrpc_error",
      { message: `bad\u001b[31m input\nsecond line ${secret.reveal()} ${"x".repeat(500)}` },
      { detail: { jsonrpc: -32602 } },
    );
    const said = e.serverMessage()!;
    expect(said).not.toMatch(/[\u0000-\u001f\u007f]/);
    expect(said).not.toContain("s3cr3t-value-123");
    expect(said).toContain("[secret]");
    expect(said.length).toBeLessThanOrEqual(200);
  });

  it("looks through an error that wraps a server's refusal", () => {
    const inner = new McpClientError(
      "protocol",
      "jsonrpc_error",
      { message: "no such version" },
      { detail: { jsonrpc: -32600 } },
    );
    const outer = new McpClientError("closed", "protocol", undefined, { cause: inner });
    expect(outer.serverMessage()).toBe("no such version");
  });

  it("is undefined for the client's own errors, even with a message in data", () => {
    expect(new McpClientError("timeout", "deadline_exceeded").serverMessage()).toBeUndefined();
    const refused = new McpClientError("input_handler", "handler_refused", { message: "our own refusal" });
    expect(refused.serverMessage()).toBeUndefined();
  });

  it("refuses a maxLength that is not a positive whole number", () => {
    const e = new McpClientError("protocol", "jsonrpc_error", { message: "m" }, { detail: { jsonrpc: -1 } });
    expect(() => e.serverMessage(0)).toThrow(TypeError);
    expect(() => e.serverMessage(1.5)).toThrow(TypeError);
  });
});

describe("reason and detail", () => {
  it("a server's JSON-RPC error: a string reason, its code in detail, both in message and toJSON", async () => {
    const client = pool.create({ name: uniqueName(), transport: officialServer("dual") });
    const err = (await client.readResource("file:///nope").catch((e: unknown) => e)) as McpClientError;
    expect(err.reason).toBe("jsonrpc_error");
    expect(err.detail).toEqual({ jsonrpc: -32602 });
    expect(err.message).toBe("protocol: jsonrpc_error jsonrpc=-32602");
    expect(JSON.parse(JSON.stringify(err))).toEqual({
      kind: "protocol",
      reason: "jsonrpc_error",
      detail: { jsonrpc: -32602 },
      message: "protocol: jsonrpc_error jsonrpc=-32602",
    });
  });

  it("every reason the library lists is a string, and an error without detail has none", () => {
    for (const codes of Object.values(ERROR_REASONS)) for (const c of codes) expect(typeof c).toBe("string");
    const plain = new McpClientError("timeout", "deadline_exceeded");
    expect(plain.detail).toBeUndefined();
    expect(Object.keys(plain)).toEqual(["name", "kind", "reason"]);
    expect(plain.toJSON()).toEqual({
      kind: "timeout",
      reason: "deadline_exceeded",
      message: "timeout: deadline_exceeded",
    });
  });

  it("a detail is scrubbed of live secrets, frozen, and quoted in message where it has spaces", () => {
    const secret = new Secret("s3cr3t-detail-456");
    const err = new McpClientError("denied", "denied_by_policy", undefined, {
      detail: { by: "policy", rule: 1, reason: `no ${secret.reveal()}` },
    });
    expect(err.detail).toEqual({ by: "policy", rule: 1, reason: "no [secret]" });
    expect(Object.isFrozen(err.detail)).toBe(true);
    expect(err.message).toBe('denied: denied_by_policy by=policy rule=1 reason="no [secret]"');
  });

  it("a closed client keeps the reason and detail of the refusal that closed it", () => {
    const inner = new McpClientError("protocol", "jsonrpc_error", undefined, { detail: { jsonrpc: -32022 } });
    const outer = new McpClientError("closed", inner.reason, undefined, {
      cause: inner,
      detail: inner.detail,
    });
    expect([outer.reason, outer.detail, outer.message]).toEqual([
      "jsonrpc_error",
      { jsonrpc: -32022 },
      "closed: jsonrpc_error jsonrpc=-32022",
    ]);
  });
});

describe("the reasons table", () => {
  it("its keys are the kinds: the seed's seventeen, in order (a kind is never dropped or renamed)", () => {
    // ErrorKind and ERROR_KINDS are derived from the table, so this list is the one check that
    // deleting a row of it is seen as the breaking change it is.
    expect([...ERROR_KINDS]).toEqual([
      "timeout",
      "transport",
      "protocol",
      "denied",
      "not_found",
      "hook",
      "unavailable",
      "closed",
      "overloaded",
      "input_handler",
      "auth",
      "rate_limited",
      "session_expired",
      "mrtr_round_limit",
      "pagination_cycle",
      "message_too_large",
      "connection_down",
    ]);
    expect(ERROR_KINDS).toEqual(Object.keys(ERROR_REASONS));
  });

  it("lists every kind, each code once, and docs/errors.md shows the same codes per kind", () => {
    expect(Object.keys(ERROR_REASONS).sort()).toEqual([...ERROR_KINDS].sort());
    const doc = readFileSync(new URL("../docs/errors.md", import.meta.url), "utf8");
    const section = doc.slice(doc.indexOf("### Every reason code"));
    for (const [kind, codes] of Object.entries(ERROR_REASONS) as Array<[string, readonly string[]]>) {
      expect(new Set(codes).size, kind).toBe(codes.length);
      for (const code of codes) expect(code, kind).toMatch(/^[a-z][a-z0-9_]*$/);
      const row = section.split("\n").find((l) => l.startsWith(`| \`${kind}\` |`));
      expect(row, kind).toBeDefined();
      const documented = [...row!.split("|")[2]!.matchAll(/`([a-z0-9_]+)`/g)].map((m) => m[1]);
      expect(documented, kind).toEqual([...codes]);
    }
  });
});
