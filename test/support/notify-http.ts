/** test/fixtures/notify-server.mjs served over HTTP on 127.0.0.1, as a child process. */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const NOTIFY = fileURLToPath(new URL("../fixtures/notify-server.mjs", import.meta.url));

export interface NotifyHttpServer {
  url: string;
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

/** Starts `notify-server.mjs <era> [ttlMs] [cacheScope] --http` and waits for its port. */
export async function startNotifyHttp(
  era: "modern" | "legacy",
  hints: string[] = [],
): Promise<NotifyHttpServer> {
  const child = spawn(process.execPath, [NOTIFY, era, ...hints, "--http"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const port = await new Promise<number>((resolve, reject) => {
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
      reject(new Error(`notify-server exited before it was ready: ${seen.slice(-500)}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`notify-server not ready in time: ${seen.slice(-500)}`));
    }, 15_000);
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
  child.stdout?.resume();
  child.stderr?.resume();
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => stopChild(child) };
}
