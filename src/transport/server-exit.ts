/**
 * What a stdio server's exit says besides its code and signal: the last lines it wrote to stderr,
 * and, for a server started by a package launcher that exited before saying anything, where its
 * environment comes from. Both go into `server_exited`'s `data` (docs/stdio.md "Faults").
 */
import { basename } from "node:path";
import { sanitizeText } from "../shared/sanitize.js";
import { INHERITED_ENV } from "./stdio-options.js";

/** Bytes of stderr kept (the newest), lines reported, and characters per line. */
const TAIL_BYTES = 8 * 1024;
const TAIL_LINES = 20;
const LINE_CHARS = 500;

/** The newest bytes a server wrote to stderr: a bounded window, whatever it writes. */
export class StderrTail {
  #chunks: Buffer[] = [];
  #bytes = 0;

  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    while (this.#chunks.length > 1 && this.#bytes - this.#chunks[0]!.length >= TAIL_BYTES) {
      this.#bytes -= this.#chunks.shift()!.length;
    }
  }

  /** Its last non-blank lines, oldest first: sanitised (server text) and clamped. */
  lines(): string[] {
    if (this.#bytes === 0) return [];
    let buf = Buffer.concat(this.#chunks);
    if (buf.length > TAIL_BYTES) buf = buf.subarray(buf.length - TAIL_BYTES);
    const text = buf.toString("utf8");
    return text
      .split(/\r?\n/)
      .map((line) => sanitizeText(line, { maxLength: LINE_CHARS }).trim())
      .filter((line) => line.length > 0)
      .slice(-TAIL_LINES);
  }
}

/** Package launchers that download the server before running it, and what they read. */
const LAUNCHERS: Record<string, string> = {
  npx: "npm_config_registry, HTTPS_PROXY, HTTP_PROXY, NO_PROXY, npm_config_cache",
  pnpx: "npm_config_registry, HTTPS_PROXY, HTTP_PROXY, NO_PROXY",
  bunx: "NPM_CONFIG_REGISTRY, HTTPS_PROXY, HTTP_PROXY, NO_PROXY",
  uvx: "UV_INDEX_URL, UV_DEFAULT_INDEX, HTTPS_PROXY, HTTP_PROXY, NO_PROXY, UV_CACHE_DIR",
};

/**
 * For a server started by `npx`, `uvx` and the like that exited before it said anything: the
 * likeliest cause behind a proxy or a private registry is that the launcher could not download
 * it, because the server's environment is the minimal allowlist. `undefined` for other commands,
 * and on Windows (where the whole environment is passed on).
 */
export function launcherHint(command: string): string | undefined {
  if (process.platform === "win32") return undefined;
  const name = basename(command).replace(/\.(cmd|exe)$/i, "");
  const settings = LAUNCHERS[name];
  if (!settings) return undefined;
  return (
    `${name} exited before the server started; a package launcher downloads the server first, and ` +
    `the server's environment is a minimal allowlist (${INHERITED_ENV.join(", ")} from yours, plus ` +
    `the transport's env): no registry, proxy or cache settings reach it. Pass those it ` +
    `needs in the transport's env option (${settings}), or install the server and run it directly`
  );
}
