/** test/fixtures/notify-server.mjs served over HTTP on 127.0.0.1, as a child process. */
import { fileURLToPath } from "node:url";
import { type RunningServer, startHttpFixture } from "./http-servers.js";

export const NOTIFY = fileURLToPath(new URL("../fixtures/notify-server.mjs", import.meta.url));

export interface NotifyHttpServer extends RunningServer {
  /** How many notification streams (legacy GET streams, modern listens) the server opened so far. */
  streamsOpened(): number;
}

/** Starts `notify-server.mjs <era> [ttlMs] [cacheScope] --http` and waits for its port. */
export async function startNotifyHttp(
  era: "modern" | "legacy",
  hints: string[] = [],
): Promise<NotifyHttpServer> {
  const server = await startHttpFixture(NOTIFY, [era, ...hints, "--http"]);
  let opened = 0;
  let tail = "";
  server.child.stdout?.on("data", (d: Buffer) => {
    const lines = (tail + String(d)).split("\n");
    tail = lines.pop() ?? "";
    opened += lines.filter((l) => l.startsWith("STREAM OPEN")).length;
  });
  return Object.assign(server, { streamsOpened: () => opened });
}
