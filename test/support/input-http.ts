/** The official input fixture (test/fixtures/input-official-server.mjs) served over HTTP. */
import { type ChildProcess, spawn } from "node:child_process";
import { INPUT_OFFICIAL } from "./input.js";

export interface InputHttpServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  origin: string;
  port: number;
  stop(): Promise<void>;
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 2_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** Resolves with the port the child prints as "LISTENING <port>". */
function listening(child: ChildProcess, timeout = 15_000): Promise<number> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const onData = (d: Buffer) => {
      seen += String(d);
      const m = /LISTENING (\d+)/.exec(seen);
      if (m) {
        cleanup();
        resolve(Number(m[1]));
      }
    };
    const onExit = () => {
      cleanup();
      reject(new Error(`input server exited before it was ready: ${seen.slice(-500)}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`input server not ready in time: ${seen.slice(-500)}`));
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

/**
 * Starts the fixture with `--http 0` (the kernel picks a free port, so there is no race between
 * choosing a port and binding it) in one of its three configurations.
 */
export async function startInputOfficialHttp(config: "modern" | "legacy" | "dual"): Promise<InputHttpServer> {
  const inherit = process.env.CONDUIT_TEST_STDERR === "inherit";
  const child = spawn(process.execPath, [INPUT_OFFICIAL, config, "--http", "0"], {
    stdio: ["ignore", "pipe", inherit ? "inherit" : "pipe"],
  });
  let port: number;
  try {
    port = await listening(child);
  } catch (err) {
    await stopChild(child);
    throw err;
  }
  child.stdout?.resume();
  child.stderr?.resume();
  const origin = `http://127.0.0.1:${port}`;
  return { url: `${origin}/mcp`, origin, port, stop: () => stopChild(child) };
}
