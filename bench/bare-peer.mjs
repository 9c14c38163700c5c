// The bare peer the benchmarks measure against: over stdio a command to spawn (each client starts
// its own), over HTTP one child process serving every client until stop().
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));

/** The bare HTTP peer, started and listening: `{ url, stop() }` (stop resolves when it exited). */
export function startHttpPeer(args = []) {
  return startHttpServer("bare-http-server.mjs", args);
}

/**
 * A server script of bench/ that prints "LISTENING <port>" and exits when its stdin ends (the
 * bare peer, the official server's http-server.mjs), started: `{ url, stop() }`.
 */
export async function startHttpServer(script, args = []) {
  const child = spawn(process.execPath, [join(HERE, script), ...args], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise((r) => child.once("exit", r));
  const port = await new Promise((resolve, reject) => {
    let seen = "";
    child.stdout.on("data", (d) => {
      seen += d;
      const m = /LISTENING (\d+)/.exec(seen);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`${script} exited (${code})`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async stop() {
      child.stdin.end();
      await exited;
    },
  };
}

/** The stdio peers: each client spawns its own. */
export const BARE_STDIO = { command: process.execPath, args: [join(HERE, "bare-server.mjs")] };
export const OFFICIAL_STDIO = { command: process.execPath, args: [join(HERE, "server.mjs")] };

/**
 * The memory cells' peer lists `echo` alone. Since f5e7d84 conduit lists a server's tools before
 * its first call (it sends only names the server listed) and keeps the listing; against the
 * 1 001-tool catalogue the cell measured that catalogue held 200 times (3.1 MB per client), not
 * the client. With one tool it measures what a client costs, its one-tool listing included.
 */
export const MEMORY_PEER_ARGS = ["--tools=0"];
export const BARE_STDIO_MEMORY = { ...BARE_STDIO, args: [...BARE_STDIO.args, ...MEMORY_PEER_ARGS] };

/** What a client connects to for `transport`: `{ target, stop() }`. */
export async function barePeer(transport) {
  if (transport !== "http") return { target: BARE_STDIO, stop: async () => {} };
  const http = await startHttpPeer();
  return { target: { url: http.url }, stop: () => http.stop() };
}
