/**
 * A legacy HTTP server that restarts: the client must notice (its event stream is gone), start a
 * new session, and tell the new server again what the old one was told (resource subscriptions,
 * the log level). Over stdio the same holds for a reconnect.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Client, type ServerNotification } from "../src/index.js";

const WATCH_SERVER = fileURLToPath(new URL("./fixtures/cli-watch-server.mjs", import.meta.url));

interface Server {
  url: string;
  port: number;
  admin(action: string, query: Record<string, string>): Promise<void>;
  stats(): Promise<{ logLevels: string[] }>;
  stop(): Promise<void>;
}

async function start(port = 0): Promise<Server> {
  const child: ChildProcess = spawn(process.execPath, [WATCH_SERVER, String(port)], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  const listening = await new Promise<number>((resolve, reject) => {
    let seen = "";
    child.stdout!.on("data", (d: Buffer) => {
      seen += String(d);
      const m = /LISTENING (\d+)/.exec(seen);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", () => reject(new Error("the server exited")));
  });
  const origin = `http://127.0.0.1:${listening}`;
  return {
    url: `${origin}/mcp`,
    port: listening,
    admin: async (action, query) => {
      await fetch(`${origin}/admin/${action}?${new URLSearchParams(query)}`, { method: "POST" });
    },
    stats: async () => (await fetch(`${origin}/admin/stats`)).json() as Promise<{ logLevels: string[] }>,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const waitFor = async (cond: () => boolean | Promise<boolean>, ms = 8000) => {
  const until = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe("a legacy HTTP server that restarts", () => {
  it("is noticed without a request; subscriptions and the log level reach the new session", async () => {
    let server = await start();
    cleanup.push(() => server.stop());
    const c = new Client({
      name: "restart",
      transport: { type: "http", url: server.url },
      protocol: "legacy",
      backoff: () => 50,
      logger: { warn: () => {} },
    });
    cleanup.push(() => c.close());
    const seen: ServerNotification[] = [];
    c.onNotification((n) => seen.push(n));
    await c.subscribe("file:///watched.txt");
    await c.setLogLevel("error");
    await waitFor(async () => (await server.stats()).logLevels.includes("error"));

    await server.stop();
    server = await start(server.port);
    // No request from the client: its event stream's loss alone must bring it back.
    await waitFor(async () => (await server.stats()).logLevels.includes("error"));
    await server.admin("touch", { uri: "file:///watched.txt" });
    await waitFor(() => seen.some((n) => n.method === "notifications/resources/updated"));
    await server.admin("log", { level: "debug", text: "too chatty" });
    await server.admin("log", { level: "error", text: "worth hearing" });
    await waitFor(() => seen.some((n) => n.method === "notifications/message"));
    expect(JSON.stringify(seen)).not.toContain("too chatty");
    expect(c.status().state).toBe("ready");
  }, 30_000);
});
