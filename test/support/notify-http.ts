/** test/fixtures/notify-server.mjs served over HTTP on 127.0.0.1, as a child process. */
import { fileURLToPath } from "node:url";
import { type RunningServer, startHttpFixture } from "./http-servers.js";

export const NOTIFY = fileURLToPath(new URL("../fixtures/notify-server.mjs", import.meta.url));

export interface NotifyHttpServer extends RunningServer {
  /** How many notification streams (legacy GET streams, modern listens) the server opened so far. */
  streamsOpened(): number;
  /** Legacy: whether the session of the latest resources/subscribe has its GET stream open. */
  subscriberStreamOpen(): boolean;
  /** How many tools/list requests the server answered so far. */
  toolLists(): number;
  /** Cuts every open notification stream (the server side of the connection is destroyed). */
  dropStreams(): Promise<void>;
}

/** Starts `notify-server.mjs <era> [ttlMs] [cacheScope] --http` and waits for its port. */
export async function startNotifyHttp(
  era: "modern" | "legacy",
  hints: string[] = [],
): Promise<NotifyHttpServer> {
  const server = await startHttpFixture(NOTIFY, [era, ...hints, "--http"]);
  const lines: string[] = [];
  let tail = "";
  server.child.stdout?.on("data", (d: Buffer) => {
    const more = (tail + String(d)).split("\n");
    tail = more.pop() ?? "";
    lines.push(...more);
  });
  return Object.assign(server, {
    streamsOpened: () => lines.filter((l) => l.startsWith("STREAM OPEN ")).length,
    toolLists: () => lines.filter((l) => l === "TOOLS LIST").length,
    dropStreams: async () => {
      await fetch(`${server.origin}/admin/drop-streams`, { method: "POST" });
    },
    subscriberStreamOpen: () => {
      const sid = lines.findLast((l) => l.startsWith("SUBSCRIBE "))?.slice("SUBSCRIBE ".length);
      return sid !== undefined && lines.includes(`STREAM OPEN GET ${sid}`);
    },
  });
}
