// The reference ceiling: the least a client over stdio can do. It spawns the server, writes
// newline-delimited JSON, splits stdout on "\n", parses each line once and settles the pending
// request by id from a Map. No timers, no validation, no cancellation, no options: whatever a
// real client spends beyond this is the price of what it does for its caller.
import { spawn } from "node:child_process";
import { listAllToolsVia } from "./bare-pages.mjs";

const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const CLIENT_INFO = { name: "bare-loop", version: "1.0.0" };

export class BareClient {
  #child;
  #pending = new Map();
  #nextId = 0;
  #parts = [];
  #meta;
  #exited;

  /** Spawns `command args` and runs the handshake of `era` ("modern" or "legacy"). */
  static async connect(command, args, era) {
    const c = new BareClient();
    await c.#start(command, args, era);
    return c;
  }

  get pid() {
    return this.#child.pid;
  }

  async #start(command, args, era) {
    const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
    this.#child = child;
    this.#exited = new Promise((resolve) => child.once("exit", resolve));
    await new Promise((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
    child.stdout.on("data", (chunk) => this.#push(chunk));
    child.once("close", () => {
      for (const p of this.#pending.values()) p.reject(new Error("server exited"));
      this.#pending.clear();
    });
    if (era === "modern") {
      // Stateless: one `server/discover`, then every request carries the same `_meta` envelope
      // the official client sends, so the bytes on the wire match the clients being compared.
      this.#meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
        "io.modelcontextprotocol/clientCapabilities": {},
      };
      const r = await this.request("server/discover", { _meta: this.#meta });
      if (!r.supportedVersions?.includes(MODERN)) throw new Error("server does not speak 2026-07-28");
    } else {
      const r = await this.request("initialize", {
        protocolVersion: LEGACY,
        capabilities: {},
        clientInfo: CLIENT_INFO,
      });
      if (r.protocolVersion !== LEGACY) throw new Error(`server answered ${r.protocolVersion}`);
      this.#write({ jsonrpc: "2.0", method: "notifications/initialized" });
    }
  }

  #write(message) {
    this.#child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  #push(chunk) {
    let start = 0;
    let nl = chunk.indexOf(10);
    while (nl !== -1) {
      let line;
      if (this.#parts.length === 0) line = chunk.toString("utf8", start, nl);
      else {
        this.#parts.push(chunk.subarray(start, nl));
        line = Buffer.concat(this.#parts).toString("utf8");
        this.#parts = [];
      }
      if (line.length > 0) this.#onMessage(JSON.parse(line));
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    if (start < chunk.length) this.#parts.push(chunk.subarray(start));
  }

  #onMessage(m) {
    if (m.id === undefined || m.method !== undefined) return; // notifications, server requests
    const p = this.#pending.get(m.id);
    if (!p) return;
    this.#pending.delete(m.id);
    if (m.error) p.reject(new Error(m.error.message));
    else p.resolve(m.result);
  }

  request(method, params) {
    const id = ++this.#nextId;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#write({ jsonrpc: "2.0", id, method, params });
    });
  }

  /** Every page of `tools/list`, following `nextCursor`: the bare listing. */
  listAllTools() {
    return listAllToolsVia((method, params) => this.request(method, params), this.#meta);
  }

  callTool(name, args) {
    return this.request(
      "tools/call",
      this.#meta ? { name, arguments: args, _meta: this.#meta } : { name, arguments: args },
    );
  }

  /** Ends stdin and waits for the server to exit; SIGTERM, then SIGKILL, if it lingers. */
  async close() {
    const child = this.#child;
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.stdin.end();
    const within = (ms) =>
      Promise.race([this.#exited.then(() => true), new Promise((r) => setTimeout(r, ms, false).unref())]);
    if (await within(2000)) return;
    child.kill("SIGTERM");
    if (await within(2000)) return;
    child.kill("SIGKILL");
    await this.#exited;
  }
}
