/**
 * How a client error is told: the library's safe `message`, a hint in the command line's terms,
 * what the server said (its own words, labelled as such), what the client itself refused, and a
 * link the server needs opened. The same parts go into the `--json` error object.
 */
import { McpClientError, sanitizeText } from "../index.js";
import { EXIT, type Output, PROGRAM } from "./common.js";
import type { Invocation } from "./invocation.js";
import { jsonDocument } from "./render.js";

/** Where the error arose: the handshake (`ready()`) or a request after it. */
export type Phase = "handshake" | "request";

export interface ErrorContext {
  phase: Phase;
  inv: Pick<Invocation, "protocol" | "target">;
  /** A detail of the caller's own, such as watch's last connection attempt. */
  extra?: string | undefined;
  /** The caller's own hint, in place of the one the reason would get. */
  hint?: string | undefined;
  /** What the server said when it is not in the error (an `isError` result's text), sanitised. */
  serverText?: string | undefined;
}

/** The JSON-RPC code of "URL elicitation required" (2025-11-25): the server needs a link opened. */
const URL_ELICITATION_REQUIRED = -32042;

/** Short explanations for the reasons a person is most likely to meet. */
const HINTS: Record<string, string> = {
  command_not_found: "the server command was not found",
  command_not_executable:
    "the server command is not executable; make it so (chmod +x) or name its interpreter (-- node server.mjs)",
  server_exited: "the server exited; its own messages, if any, are above",
  not_ready: "the server did not finish the handshake within --timeout",
  deadline_exceeded: "the server did not answer within --timeout, renewed by its progress up to --max-time",
  unauthorized: "the server wants credentials, or refused these: HTTP 401; see --bearer-env",
  forbidden: "the server refused these credentials: HTTP 403",
  network_error: "the server could not be reached at --url",
  http_404: "nothing answers at this --url, HTTP 404; check the endpoint's path, often /mcp",
  redirect_not_followed: "the server answered with a redirect, which the CLI does not follow",
  subscriptions_not_supported: "the server offers no resource subscriptions (--subscribe)",
  legacy_server:
    "the server does not speak the modern era, only the legacy one (2025-11-25 and before) or none at this address; use --protocol legacy or auto",
  unknown_tool: "the server has no tool of that name (see `conduit-mcp tools`)",
  unknown_resource: "the server has no resource at that URI (see `conduit-mcp resources`)",
  unknown_prompt: "the server has no prompt of that name (see `conduit-mcp prompts`)",
  approval_required: "the policy says ask for this tool; add --approve to be asked on the terminal",
  server_down: "that server is down, for the failure named; 'info' shows each server's state",
  handler_timeout: "no answer was given within --input-timeout",
};

/** The library's probe timeouts (ClientOptions.probeTimeout defaults), for the hint only. */
const PROBE_TIMEOUT_SECONDS = { stdio: 3, http: 5 } as const;

/** The parts of a report; `json` is what `--json` adds to `{ kind, reason, message }`. */
interface Told {
  hint?: string;
  serverMessage?: string;
  refused?: string;
  url?: string;
}

function hintFor(
  err: McpClientError,
  cause: McpClientError | undefined,
  ctx: ErrorContext,
): string | undefined {
  const reasons = [err.reason, cause?.reason].filter((r): r is string => typeof r === "string");
  if (ctx.phase === "handshake" && reasons.includes("deadline_exceeded")) {
    // The first request of an `auto` handshake has its own, shorter deadline.
    return ctx.inv.protocol === "auto"
      ? `the server did not answer the era probe (server/discover) within the probe timeout (${PROBE_TIMEOUT_SECONDS[ctx.inv.target.kind === "http" ? "http" : "stdio"]} s); a server that takes longer may need --protocol modern or legacy`
      : "the server did not answer the handshake within --timeout";
  }
  const broke = brokenAnswerCode(err) ?? (cause ? brokenAnswerCode(cause) : undefined);
  if (broke) return `the server at --url answered, but with a response that breaks HTTP (${broke})`;
  for (const reason of reasons) if (HINTS[reason]) return HINTS[reason];
  return undefined;
}

/** Answers undici refuses (a header flood, bad framing): the server was reached. */
const BROKEN_ANSWER = new Set([
  "UND_ERR_HEADERS_OVERFLOW",
  "UND_ERR_RES_CONTENT_LENGTH_MISMATCH",
  "UND_ERR_RES_EXCEEDED_MAX_SIZE",
  "UND_ERR_INFO",
  "HTTP_PARSE_ERROR",
]);

/**
 * The code of a `network_error` (or a body's `request_failed`) that was no network failure: the
 * server answered, in a way HTTP parsing refuses ("could not be reached" sent people looking for a firewall).
 */
function brokenAnswerCode(err: McpClientError): string | undefined {
  if (err.reason !== "network_error" && err.reason !== "request_failed") return undefined;
  const code = (err.data as { code?: unknown } | undefined)?.code;
  if (typeof code !== "string" || !/^[A-Z0-9_]{1,64}$/.test(code)) return undefined;
  return code.startsWith("HPE_") || BROKEN_ANSWER.has(code) ? code : undefined;
}

function jsonRpcCode(err: McpClientError): number | undefined {
  return err.detail !== undefined && "jsonrpc" in err.detail ? err.detail.jsonrpc : undefined;
}

/** The link a `-32042` error asks the user to open (shown, never opened). */
function requiredUrl(err: McpClientError): string | undefined {
  if (jsonRpcCode(err) !== URL_ELICITATION_REQUIRED) return undefined;
  const inner = (err.data as { data?: unknown } | undefined)?.data;
  const list = (inner as { elicitations?: unknown } | undefined)?.elicitations;
  const first = Array.isArray(list) ? (list[0] as { url?: unknown } | undefined) : undefined;
  return typeof first?.url === "string" ? sanitizeText(first.url, { maxLength: 2_000 }) : undefined;
}

/** What the client's own input handling refused (its message is ours, not the server's). */
function ownRefusal(err: McpClientError): string | undefined {
  if (err.kind !== "input_handler") return undefined;
  const message = (err.data as { message?: unknown } | undefined)?.message;
  return typeof message === "string" && message ? sanitizeText(message, { maxLength: 200 }) : undefined;
}

/**
 * The library's own hint in an error's data (a launcher such as npx that exited before the
 * server started, a missing optional package): the client's text, not the server's.
 */
function libraryHint(err: McpClientError): string | undefined {
  const hint = (err.data as { hint?: unknown } | undefined)?.hint;
  return typeof hint === "string" && hint ? sanitizeText(hint, { maxLength: 600 }) : undefined;
}

function tell(err: McpClientError, ctx: ErrorContext): Told {
  const cause = err.cause instanceof McpClientError ? err.cause : undefined;
  const told: Told = {};
  const hint = ctx.hint ?? [hintFor(err, cause, ctx), libraryHint(err)].filter(Boolean).join("; ");
  if (hint) told.hint = hint;
  const said = err.serverMessage() ?? ctx.serverText;
  if (said) told.serverMessage = said;
  const refused = ownRefusal(err) ?? (cause && ownRefusal(cause));
  if (refused) told.refused = refused;
  const url = requiredUrl(err) ?? (cause && requiredUrl(cause));
  if (url) told.url = url;
  return told;
}

/** Reports a client error on stderr (and as the one JSON document with --json); exit 3. */
export function clientError(err: McpClientError, out: Output, json: boolean, ctx: ErrorContext): number {
  const told = tell(err, ctx);
  if (json) {
    out.stdout(
      jsonDocument({ error: { ...err.toJSON(), ...told, ...(ctx.extra ? { note: ctx.extra } : {}) } }),
    );
    out.stderr(`${PROGRAM}: ${err.message}\n`);
    return EXIT.client;
  }
  // A `closed` error wraps what closed the connection; name that too.
  const cause = err.cause instanceof McpClientError ? err.cause : undefined;
  const details = [
    told.hint,
    // The reason names only the cause's kind when its own reason was not a plain code.
    cause && err.reason === cause.kind ? `after ${cause.message}` : undefined,
    told.serverMessage ? `server said: ${told.serverMessage}` : undefined,
    told.refused ? `refused by this client: ${told.refused}` : undefined,
    ctx.extra,
  ].filter(Boolean);
  out.stderr(`${PROGRAM}: ${err.message}${details.length > 0 ? ` (${details.join("; ")})` : ""}\n`);
  if (told.url) {
    out.stderr(
      `${PROGRAM}: the server needs you to open this link first (never opened for you): ${told.url}\n`,
    );
  }
  return EXIT.client;
}
