/** Real HTTP MCP servers on 127.0.0.1, started by the tests as child processes. */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

export const HTTP_OFFICIAL = fileURLToPath(new URL("../fixtures/http-official-server.mjs", import.meta.url));
const EVERYTHING = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);

export interface OfficialStats {
  cancelled: number;
  sessions: number;
  deletes: number;
  requests: number;
}

export interface RunningServer {
  url: string;
  origin: string;
  port: number;
  stop(): Promise<void>;
}

/** Stops `child` with `signal` (SIGKILL after 2 s) and resolves once it has exited. */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 2_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

/** Waits until `pattern` appears on the child's stdout or stderr; resolves with its first group. */
function waitForOutput(child: ChildProcess, pattern: RegExp, timeout = 15_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const onData = (d: Buffer) => {
      seen += String(d);
      const m = pattern.exec(seen);
      if (m) {
        cleanup();
        resolve(m[1] ?? m[0]);
      }
    };
    const onExit = () => {
      cleanup();
      reject(new Error(`server exited before it was ready: ${seen.slice(-500)}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`server not ready in time: ${seen.slice(-500)}`));
    }, timeout);
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.stderr?.off("data", onData);
      child.off("exit", onExit);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", onExit);
  });
}

export interface FixtureOptions {
  /** How `stop()` ends the process: SIGTERM (default), or SIGKILL to play a crash. */
  stopSignal?: NodeJS.Signals;
}

/**
 * Starts a fixture that serves HTTP on 127.0.0.1 and prints "LISTENING <port>" when ready (port 0
 * in its arguments lets the kernel pick a free one), and waits for that port.
 */
export async function startHttpFixture(
  script: string,
  args: readonly string[],
  options: FixtureOptions = {},
): Promise<RunningServer & { child: ChildProcess }> {
  const inherit = process.env.CONDUIT_TEST_STDERR === "inherit";
  const child = spawn(process.execPath, [script, ...args], {
    stdio: ["ignore", "pipe", inherit ? "inherit" : "pipe"],
  });
  let port: number;
  try {
    port = Number(await waitForOutput(child, /LISTENING (\d+)/));
  } catch (err) {
    await stopChild(child);
    throw err;
  }
  child.stdout?.resume();
  child.stderr?.resume();
  const origin = `http://127.0.0.1:${port}`;
  return { url: `${origin}/mcp`, origin, port, child, stop: () => stopChild(child, options.stopSignal) };
}

/** The official `@modelcontextprotocol/server` fixture over HTTP. */
export async function startOfficialHttp(era: "modern" | "legacy" | "dual"): Promise<
  RunningServer & {
    stats(): Promise<OfficialStats>;
    expire(): Promise<void>;
  }
> {
  const server = await startHttpFixture(HTTP_OFFICIAL, [era]);
  return {
    ...server,
    stats: async () => (await fetch(`${server.origin}/admin/stats`)).json() as Promise<OfficialStats>,
    expire: async () => {
      await fetch(`${server.origin}/admin/expire`, { method: "POST" });
    },
  };
}

/** A free TCP port on 127.0.0.1 (for servers that take a port but not 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** `@modelcontextprotocol/server-everything` in its streamable HTTP (`/mcp`) or HTTP+SSE (`/sse`) mode. */
export async function startEverything(mode: "streamableHttp" | "sse"): Promise<RunningServer> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const child = spawn(process.execPath, [EVERYTHING, mode], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, PORT: String(port) },
    });
    try {
      await waitForOutput(child, /(listening on port|running on port)/i);
    } catch (err) {
      await stopChild(child);
      if (attempt < 2) continue;
      throw err;
    }
    child.stdout?.resume();
    child.stderr?.resume();
    const origin = `http://127.0.0.1:${port}`;
    return {
      url: `${origin}/${mode === "sse" ? "sse" : "mcp"}`,
      origin,
      port,
      stop: () => stopChild(child),
    };
  }
}
