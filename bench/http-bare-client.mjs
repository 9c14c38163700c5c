// The reference ceiling over HTTP: the least a client can do. node:http with a keep-alive Agent,
// one POST per request with the headers the era needs, the body read whole, parsed once (a JSON
// body, or the `data:` lines of an event stream), and the response picked by id. No timers, no
// validation, no cancellation, no size cap, no options: whatever a real client spends beyond this
// is the price of what it does for its caller.
import http from "node:http";
import { listAllToolsVia } from "./bare-pages.mjs";

const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const CLIENT_INFO = { name: "bare-loop", version: "1.0.0" };

export class BareHttpClient {
  #agent = new http.Agent({ keepAlive: true });
  #url;
  #nextId = 0;
  #meta;
  #headers;

  /** Runs the handshake of `era` ("modern" or "legacy") against the endpoint `url`. */
  static async connect(url, era) {
    const c = new BareHttpClient(new URL(url));
    await c.#start(era);
    return c;
  }

  constructor(url) {
    this.#url = url;
    this.#headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  }

  async #start(era) {
    if (era === "modern") {
      // Stateless: one `server/discover`, then every request carries the same `_meta` envelope
      // the official client sends, and the standard request headers.
      this.#meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
        "io.modelcontextprotocol/clientCapabilities": {},
      };
      this.#headers["mcp-protocol-version"] = MODERN;
      const r = await this.request("server/discover", { _meta: this.#meta });
      if (!r.supportedVersions?.includes(MODERN)) throw new Error("server does not speak 2026-07-28");
    } else {
      const { result: r, session } = await this.#post(
        {
          jsonrpc: "2.0",
          id: ++this.#nextId,
          method: "initialize",
          params: {
            protocolVersion: LEGACY,
            capabilities: {},
            clientInfo: CLIENT_INFO,
          },
        },
        "initialize",
      );
      if (r.protocolVersion !== LEGACY) throw new Error(`server answered ${r.protocolVersion}`);
      if (session) this.#headers["mcp-session-id"] = session;
      this.#headers["mcp-protocol-version"] = LEGACY;
      await this.#post({ jsonrpc: "2.0", method: "notifications/initialized" });
    }
  }

  /** One POST; resolves with the response's result (and the session id of an answer, if any). */
  #post(message, method, name) {
    const body = JSON.stringify(message);
    const headers = { ...this.#headers };
    if (this.#meta && method !== undefined) {
      headers["mcp-method"] = method;
      if (name !== undefined) headers["mcp-name"] = name;
    }
    return new Promise((resolve, reject) => {
      const req = http.request(this.#url, { method: "POST", agent: this.#agent, headers }, (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => {
          if (message.id === undefined) return resolve({});
          if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}`));
          const text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString("utf8");
          const m = res.headers["content-type"]?.startsWith("text/event-stream")
            ? fromEvents(text, message.id)
            : JSON.parse(text);
          if (!m || m.id !== message.id) return reject(new Error("no response"));
          if (m.error) return reject(new Error(m.error.message));
          resolve({ result: m.result, session: res.headers["mcp-session-id"] });
        });
      });
      req.on("error", reject);
      req.end(body);
    });
  }

  async request(method, params, name) {
    const message = { jsonrpc: "2.0", id: ++this.#nextId, method, params };
    return (await this.#post(message, method, name)).result;
  }

  /** Every page of `tools/list`, following `nextCursor`: the bare listing. */
  listAllTools() {
    return listAllToolsVia((method, params) => this.request(method, params), this.#meta);
  }

  callTool(name, args) {
    return this.request(
      "tools/call",
      this.#meta ? { name, arguments: args, _meta: this.#meta } : { name, arguments: args },
      name,
    );
  }

  /** Closes the kept-alive sockets. */
  async close() {
    this.#agent.destroy();
  }
}

/** The message with `id` among the `data:` lines of an event stream (one line per event here). */
function fromEvents(text, id) {
  let at = text.indexOf("data: ");
  while (at !== -1) {
    const end = text.indexOf("\n", at);
    const m = JSON.parse(text.slice(at + 6, end === -1 ? undefined : end));
    if (m.id === id) return m;
    at = text.indexOf("data: ", at + 6);
  }
  return undefined;
}
