/**
 * Keep-alive reuse: sequential calls travel on one socket. The next request is sent in the same
 * tick as the caller hears the previous answer (a JSON body, an event stream, a 202, a refusal);
 * the transport's pool hands it the idle socket at once instead of opening another connection
 * (undici's Pool did, because it frees a socket only a loop turn after its answer ended).
 */
import type { Socket } from "node:net";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { httpTestClients } from "./support/http-clients.js";
import { result, type ScriptedHttpServer, sse, startScripted } from "./support/http-scripted.js";

const clients = httpTestClients("http-keep-alive");
let server: ScriptedHttpServer | undefined;

afterEach(async () => {
  await clients.closeAll();
  await server?.close();
});
afterAll(() => clients.assertNoLeak());

describe.each(["modern", "legacy"] as const)("keep-alive, %s", (era) => {
  it("sequential calls answered by event streams reuse one socket", async () => {
    const s = await startScripted({ era });
    server = s;
    // The socket of every request, in order.
    const used: Array<{ what: string; socket: Socket }> = [];
    s.on((req, res) => {
      used.push({ what: `${req.method} ${req.rpc ?? ""}`, socket: res.socket as Socket });
      if (req.rpc !== "tools/call") return false;
      const id = req.body!.id;
      const meta = era === "modern" ? { resultType: "complete" } : {};
      // The response event, then the end of the stream: as real servers answer.
      sse(res, [{ data: result(id, { ...meta, content: [{ type: "text", text: `call ${used.length}` }] }) }]);
      return true;
    });
    const c = clients.create(s.url);
    await c.callTool("echo", { message: "first" });
    const afterFirst = new Set(used.map((u) => u.socket)).size;
    for (let i = 2; i <= 6; i++) {
      const r = await c.callTool("echo", { message: String(i) });
      expect(r.content).toEqual([{ type: "text", text: `call ${used.length}` }]);
    }
    const calls = used.filter((u) => u.what === "POST tools/call");
    expect(calls).toHaveLength(6);
    // Nothing after the first call opened a connection; the later calls share one socket.
    expect(new Set(used.map((u) => u.socket)).size).toBe(afterFirst);
    expect(new Set(calls.slice(1).map((u) => u.socket)).size).toBe(1);
    if (era === "modern") {
      // The probe (a JSON body) and every call: one socket in all.
      expect(afterFirst).toBe(1);
    } else {
      // The standalone GET stream holds one (it stays open); the handshake, the probe's refusal
      // and the calls share the other.
      expect(used.find((u) => u.what === "GET ")).toBeDefined();
      expect(afterFirst).toBe(2);
    }
  });
});
