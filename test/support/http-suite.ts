/**
 * The set-up the scripted-HTTP test files share: a client pool whose logs, events and errors are
 * checked for the token after the file, the file's current scripted server closed after each
 * test, and the small helpers each of those files wrote again (`onRpc`, `rejection`,
 * `expectWorking`).
 */
import type http from "node:http";
import { afterAll, afterEach, expect } from "vitest";
import { McpClientError } from "../../src/index.js";
import { type HttpTestClients, httpTestClients } from "./http-clients.js";
import type { ScriptedHttpServer, SeenRequest } from "./http-scripted.js";

export interface ScriptedSuite {
  readonly clients: HttpTestClients;
  /** The rejection `p` ends in, kept for the leak check; fails unless it is an `McpClientError`. */
  rejection(p: Promise<unknown>): Promise<McpClientError>;
  /** The scripted server's echo still answers through `c`. */
  expectWorking(c: {
    callTool(name: string, args: Record<string, unknown>): Promise<{ structured?: unknown }>;
  }): Promise<void>;
}

/**
 * Registers the hooks for a test file named `name`; `current` returns the server the running
 * test started (closed after it, clients first).
 */
export function scriptedSuite(name: string, current: () => ScriptedHttpServer | undefined): ScriptedSuite {
  const clients = httpTestClients(name);
  afterEach(async () => {
    await clients.closeAll();
    await current()?.close();
  });
  afterAll(() => {
    clients.assertNoLeak();
    clients.events.stop();
  });
  return {
    clients,
    async rejection(p) {
      const err = await p.then(
        () => {
          throw new Error("expected a rejection");
        },
        (e) => e,
      );
      clients.seen(err);
      expect(err).toBeInstanceOf(McpClientError);
      return err as McpClientError;
    },
    async expectWorking(c) {
      const r = await c.callTool("echo", { message: "still working" });
      expect(r.structured).toMatchObject({ arguments: { message: "still working" } });
    },
  };
}

/** A scripted handler for one JSON-RPC method; `times` limits how many requests it takes. */
export function onRpc(
  method: string,
  answer: (req: SeenRequest, res: http.ServerResponse) => void,
  times = Number.POSITIVE_INFINITY,
) {
  let left = times;
  return (req: SeenRequest, res: http.ServerResponse) => {
    if (req.rpc !== method || left <= 0) return false;
    left -= 1;
    answer(req, res);
    return true;
  };
}
