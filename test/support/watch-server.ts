/** test/fixtures/cli-watch-server.mjs: an HTTP server (both eras) whose lists a test changes from outside. */
import { fileURLToPath } from "node:url";
import { type FixtureOptions, startHttpFixture } from "./http-servers.js";

export const WATCH_SERVER = fileURLToPath(new URL("../fixtures/cli-watch-server.mjs", import.meta.url));

export interface WatchServer {
  url: string;
  port: number;
  /** One of the fixture's `/admin/<action>` changes (see its header); rejects unless it is answered 204. */
  admin(action: string, query: Record<string, string>): Promise<void>;
  stats(): Promise<{ sessions: number; openSessions: number; logLevels: string[] }>;
  stop(): Promise<void>;
}

/** Starts the fixture on a free port, or on `port` (a restart on the same address). */
export async function startWatchServer(port = 0, options: FixtureOptions = {}): Promise<WatchServer> {
  const server = await startHttpFixture(WATCH_SERVER, [String(port)], options);
  return {
    url: server.url,
    port: server.port,
    async admin(action, query) {
      const res = await fetch(`${server.origin}/admin/${action}?${new URLSearchParams(query)}`, {
        method: "POST",
      });
      if (res.status !== 204) throw new Error(`admin ${action} answered ${res.status}: ${await res.text()}`);
    },
    stats: async () =>
      (await fetch(`${server.origin}/admin/stats`)).json() as ReturnType<WatchServer["stats"]>,
    stop: server.stop,
  };
}
