/**
 * `conduit-mcp login --url URL` and `conduit-mcp logout --url URL`: the OAuth flow for a person
 * at a terminal. login listens on a loopback port for the redirect, prints the authorization URL
 * (and opens it only with `--open`, only when it is https, and never through a shell), and keeps
 * the tokens in the file store (mode 0600), where later `--url` commands find them.
 */
import { execFile } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { resourceMatches } from "../../auth/discovery.js";
import { Client, FileTokenStore, McpClientError } from "../../index.js";
import { loginAuth } from "../auth.js";
import { Clock } from "../clock.js";
import { EXIT, type Output, PROGRAM } from "../common.js";
import { CALLBACK_PATH, storedResources, tokenFile } from "../login-store.js";
import { clientError } from "../report.js";

export const LOGIN_USAGE = `Usage: ${PROGRAM} login --url <url> [--open] [--port <n>] [--timeout <ms>]
       ${PROGRAM} logout --url <url>

login runs the server's OAuth authorization: it prints a URL to open in a browser (--open opens
an https one with the system's opener), waits for the redirect on 127.0.0.1 (--port, default any
free port), and keeps the tokens in ${"$"}CONDUIT_MCP_TOKENS (default ~/.config/conduit-mcp/tokens.json,
readable by you only). Later --url commands to that server use them. logout deletes them.
`;

const LOGIN_TIMEOUT = 300_000;

interface LoginArgs {
  url: string;
  open: boolean;
  port: number;
  timeout: number;
}

function parse(argv: readonly string[], out: Output): LoginArgs | number {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options: {
        url: { type: "string" },
        open: { type: "boolean" },
        port: { type: "string" },
        timeout: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    });
    if (values.help) {
      out.stdout(LOGIN_USAGE);
      return EXIT.ok;
    }
    if (positionals.length > 1) throw new Error(`unexpected argument "${positionals[1]}"`);
    if (!values.url) throw new Error("--url <url> is required");
    const port = values.port === undefined ? 0 : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error("--port must be 0 to 65535");
    const timeout = values.timeout === undefined ? LOGIN_TIMEOUT : Number(values.timeout);
    if (!Number.isInteger(timeout) || timeout < 1)
      throw new Error("--timeout must be a positive whole number");
    return { url: values.url, open: values.open === true, port, timeout };
  } catch (err) {
    out.stderr(`${PROGRAM}: ${(err as Error).message}\nRun '${PROGRAM} login --help' for usage.\n`);
    return EXIT.usage;
  }
}

/** Opens an https URL with the platform's opener, as one argument, never through a shell. */
function openInBrowser(url: string): void {
  if (!url.startsWith("https://")) return;
  const [cmd, args] =
    process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["rundll32", ["url.dll,FileProtocolHandler", url]]
        : ["xdg-open", [url]];
  execFile(cmd, args as string[], { shell: false, timeout: 10_000 }, () => {});
}

/** One loopback listener for the redirect; resolves with the full callback URL. */
async function listenForCallback(
  port: number,
): Promise<{ redirectUri: string; next: Promise<string>; close(): void }> {
  let deliver: (url: string) => void = () => {};
  const next = new Promise<string>((resolve) => {
    deliver = resolve;
  });
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method !== "GET" || u.pathname !== CALLBACK_PATH) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    res.end(`${PROGRAM}: authorization received; you can close this window.\n`);
    deliver(`${redirectUri}${u.search}`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}${CALLBACK_PATH}`;
  return {
    redirectUri,
    next,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

export async function runLogin(
  argv: readonly string[],
  out: Output,
  signal?: AbortSignal,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  const args = parse(argv, out);
  if (typeof args === "number") return args;
  const path = tokenFile(env);
  let callback: Awaited<ReturnType<typeof listenForCallback>>;
  try {
    callback = await listenForCallback(args.port);
  } catch (err) {
    out.stderr(`${PROGRAM}: cannot listen on 127.0.0.1:${args.port}: ${(err as Error).message}\n`);
    return EXIT.client;
  }
  // login's one limit: its --timeout, for the handshake that runs the authorization.
  const clock = new Clock({ timeout: args.timeout, maxTime: args.timeout });
  let client: Client | undefined;
  try {
    const store = new FileTokenStore(path);
    client = new Client({
      name: PROGRAM,
      transport: {
        type: "http",
        url: args.url,
        auth: loginAuth({
          store,
          redirectUri: callback.redirectUri,
          clientName: PROGRAM,
          redirect: async (authorizationUrl) => {
            out.stderr(`${PROGRAM}: open this URL in a browser to authorize:\n\n  ${authorizationUrl}\n\n`);
            if (args.open) openInBrowser(authorizationUrl);
            return callback.next;
          },
        }),
      },
      requestTimeout: clock.timeout,
      logger: {
        warn: (m) => out.stderr(`${PROGRAM}: warning: ${m}\n`),
        error: (m) => out.stderr(`${PROGRAM}: error: ${m}\n`),
      },
    });
    await client.ready({ timeout: clock.span().left(), ...(signal ? { signal } : {}) });
    const target = new URL(args.url);
    const stored = storedResources(path).some((r) => resourceMatches(r, target));
    out.stdout(
      stored
        ? `logged in to ${args.url} (tokens in ${path})\n`
        : `${args.url} did not ask for authorization; nothing stored\n`,
    );
    return EXIT.ok;
  } catch (err) {
    if (err instanceof TypeError) {
      out.stderr(`${PROGRAM}: ${err.message}\n`);
      return EXIT.usage;
    }
    if (err instanceof McpClientError) {
      return clientError(err, out, false, {
        phase: "handshake",
        inv: { protocol: "auto", target: { kind: "http", url: args.url, headers: [], bearer: null } },
      });
    }
    out.stderr(`${PROGRAM}: login failed\n`);
    return EXIT.client;
  } finally {
    await client?.close().catch(() => {});
    callback.close();
  }
}

export async function runLogout(
  argv: readonly string[],
  out: Output,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  let url: URL;
  try {
    const { values } = parseArgs({ args: [...argv], options: { url: { type: "string" } }, strict: true });
    if (!values.url) throw new Error("--url <url> is required");
    url = new URL(values.url);
  } catch (err) {
    out.stderr(`${PROGRAM}: ${(err as Error).message}\nRun '${PROGRAM} login --help' for usage.\n`);
    return EXIT.usage;
  }
  const path = tokenFile(env);
  const store = new FileTokenStore(path);
  let n = 0;
  for (const r of storedResources(path)) if (resourceMatches(r, url)) n += await store.deleteResource(r);
  out.stdout(
    n > 0 ? `logged out of ${url.href} (${n} token set(s) deleted)\n` : `no tokens stored for ${url.href}\n`,
  );
  return EXIT.ok;
}
