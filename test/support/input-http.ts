/** The official input fixture (test/fixtures/input-official-server.mjs) served over HTTP. */
import { type RunningServer, startHttpFixture } from "./http-servers.js";
import { INPUT_OFFICIAL } from "./input.js";

export type InputHttpServer = RunningServer;

/**
 * Starts the fixture with `--http 0` (the kernel picks a free port, so there is no race between
 * choosing a port and binding it) in one of its three configurations.
 */
export function startInputOfficialHttp(config: "modern" | "legacy" | "dual"): Promise<InputHttpServer> {
  return startHttpFixture(INPUT_OFFICIAL, [config, "--http", "0"]);
}
