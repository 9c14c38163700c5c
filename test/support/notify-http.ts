/** test/fixtures/notify-server.mjs served over HTTP on 127.0.0.1, as a child process. */
import { fileURLToPath } from "node:url";
import { type RunningServer, startHttpFixture } from "./http-servers.js";

export const NOTIFY = fileURLToPath(new URL("../fixtures/notify-server.mjs", import.meta.url));

export type NotifyHttpServer = RunningServer;

/** Starts `notify-server.mjs <era> [ttlMs] [cacheScope] --http` and waits for its port. */
export function startNotifyHttp(era: "modern" | "legacy", hints: string[] = []): Promise<NotifyHttpServer> {
  return startHttpFixture(NOTIFY, [era, ...hints, "--http"]);
}
