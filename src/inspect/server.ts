/**
 * The inspector's HTTP server (`node:http`): loopback only, the token on every request, the
 * Host and Origin checks, JSON POSTs with a body limit, the static page under a strict CSP.
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { Hub } from "../hub/hub.js";
import { type ApiAnswer, type ApiContext, apiGet, apiPost } from "./api.js";
import type { Desk } from "./desk.js";
import { Feed } from "./feed.js";
import {
  allowedHosts,
  checkRequest,
  loopbackAddress,
  newToken,
  queryToken,
  SECURITY_HEADERS,
  tokenCookie,
} from "./guard.js";
import { TaskBoard } from "./tasks.js";

export interface InspectorOptions {
  /** The servers to show (the caller made it, with `desk.handler()` and `desk.approve` wired in). */
  hub: Hub;
  desk: Desk;
  /** The hub's `name`: picks its telemetry events. */
  hubName: string;
  /** Loopback only: 127.0.0.1 (default), ::1 or localhost; anything else throws `InspectHostError`. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
}

export interface Inspector {
  /** The address to open, token included: `http://127.0.0.1:<port>/?token=<token>`. */
  url: string;
  port: number;
  /** Stops the server (the caller closes the hub). */
  close(): Promise<void>;
}

/** POST bodies larger than this are refused (413). */
export const MAX_BODY = 1024 * 1024;

const ASSETS: Record<string, { file: string; type: string }> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  // The page's ES modules, each by name: nothing else under assets/ is served.
  ...Object.fromEntries(
    ["app.js", "dom.js", "form.js", "result.js", "dialogs.js", "catalog.js", "tasks.js"].map((f) => [
      `/${f}`,
      { file: f, type: "text/javascript; charset=utf-8" },
    ]),
  ),
  "/style.css": { file: "style.css", type: "text/css; charset=utf-8" },
};

/** The assets beside this module in src/, or in dist/inspect/assets once bundled into a chunk. */
function assetDir(): string {
  for (const rel of ["./assets/", "../inspect/assets/"]) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(`${dir}index.html`)) return dir;
  }
  throw new Error("conduit-mcp: the inspector's page is missing from the package (inspect/assets)");
}

export async function startInspector(options: InspectorOptions): Promise<Inspector> {
  const address = loopbackAddress(options.host);
  const dir = assetDir();
  const assets = Object.fromEntries(
    Object.entries(ASSETS).map(([path, a]) => [path, { body: readFileSync(dir + a.file), type: a.type }]),
  );
  const token = newToken();
  const feed = new Feed(options.hubName);
  options.desk.attach(feed);
  const tasks = new TaskBoard(options.hub, feed);
  const ctx: ApiContext = { hub: options.hub, desk: options.desk, feed, calls: new Map(), tasks };
  const unwatch = options.hub.onToolsChanged((c) =>
    feed.send("list_changed", { serverId: c.serverId, reason: c.reason }),
  );
  let hosts = allowedHosts(address, 0);

  const server = createServer((req, res) => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
    const refusal = checkRequest(req, hosts, token);
    if (refusal) return send(res, { status: refusal.status, body: { error: { message: refusal.reason } } });
    route(req, res, ctx, { assets, port: hosts.port }).catch(() => {
      if (!res.headersSent) send(res, { status: 500, body: { error: { message: "internal error" } } });
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, address, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  hosts = allowedHosts(address, port);
  const literal = address.includes(":") ? `[${address}]` : address;
  return {
    url: `http://${literal}:${port}/?token=${token}`,
    port,
    close: async () => {
      unwatch();
      for (const c of ctx.calls.values()) c.abort(new Error("inspector stopped"));
      tasks.close();
      options.desk.close();
      feed.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function route(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: ApiContext,
  site: { assets: Record<string, { body: Buffer; type: string }>; port: number },
): Promise<void> {
  const assets = site.assets;
  const url = new URL(req.url ?? "/", "http://x");
  if (req.method === "GET") {
    const asset = assets[url.pathname];
    if (asset) {
      // The first load carries the token in the URL: keep it as a cookie, and drop it from the address bar.
      if (queryToken(req.url ?? "/") !== null) {
        res.writeHead(303, {
          "Set-Cookie": tokenCookie(queryToken(req.url ?? "/")!, site.port),
          Location: url.pathname,
        });
        res.end();
        return;
      }
      res.writeHead(200, { "Content-Type": asset.type });
      res.end(asset.body);
      return;
    }
    if (url.pathname === "/api/events") return ctx.feed.attach(res);
    if (url.pathname.startsWith("/api/")) return send(res, await apiGet(ctx, url.pathname, url.searchParams));
    return send(res, { status: 404, body: { error: { message: "not found" } } });
  }
  if (req.method !== "POST")
    return send(res, { status: 405, body: { error: { message: "GET or POST only" } } });
  // A form or a "simple" cross-site request cannot send this type without a CORS preflight, which is never answered.
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") {
    return send(res, {
      status: 415,
      body: { error: { message: "POST needs Content-Type: application/json" } },
    });
  }
  const text = await readBody(req);
  if (text === null) {
    res.setHeader("Connection", "close");
    return send(res, { status: 413, body: { error: { message: "body too large" } } });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return send(res, { status: 400, body: { error: { message: "the body is not JSON" } } });
  }
  send(res, await apiPost(ctx, url.pathname, body));
}

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      // Past the limit the rest is read and thrown away; the answer (413) closes the connection.
      if (size > MAX_BODY) return resolve(null);
      chunks.push(c);
    });
    req.on("end", () => resolve(size > MAX_BODY ? null : Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, answer: ApiAnswer): void {
  res.writeHead(answer.status, { "Content-Type": "application/json; charset=utf-8" });
  res.end(JSON.stringify(answer.body));
}
