import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { McpClientError, Secret } from "../src/index.js";

describe("Secret", () => {
  const value = "sk-live-0123456789abcdef";

  it("never renders its value", () => {
    const s = new Secret(value);
    expect(String(s)).toBe("[secret]");
    expect(`${s}`).toBe("[secret]");
    expect(JSON.stringify({ token: s })).toBe('{"token":"[secret]"}');
    expect(inspect(s)).not.toContain(value);
    expect(inspect({ nested: { s } }, { depth: 5 })).not.toContain(value);
    expect(s.reveal()).toBe(value);
  });

  it("is redacted from error messages even when a reason carries it", () => {
    const s = new Secret(value);
    const err = new McpClientError("auth", `token ${s.reveal()} rejected`);
    expect(err.message).not.toContain(value);
    expect(err.message).toContain("[secret]");
    expect(JSON.stringify(err)).not.toContain(value);
    expect(inspect(err)).not.toContain(value);
  });
});
