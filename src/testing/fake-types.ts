/**
 * The shapes of a `FakeServer` (conduit-mcp/testing): its options, what a handler is given, the
 * faults it can script and what it records. Beside the classes so that the server and its
 * sessions both name them without naming each other.
 */
export type FakeEra = "modern" | "legacy";

export interface FakeServerOptions {
  /** `serverInfo.name`. Default `"fake"`. */
  name?: string;
  /** `serverInfo.version`. Default `"1.0.0"`. */
  version?: string;
  /** The eras it serves. Default both: `["modern", "legacy"]`. */
  eras?: FakeEra[];
  /** The instructions it gives in the handshake. Default none. */
  instructions?: string;
}

/** What a handler is given besides its arguments. */
export interface FakeContext {
  /** The era of the connection the request came on. */
  era: FakeEra;
  /** Aborts when the client cancels the request (or the connection ends). */
  signal: AbortSignal;
  /** The request's `_meta`, as sent. */
  meta: Record<string, unknown> | undefined;
  /** The answers to the input requests scripted with `fail(..., { inputRequests })`, keyed as asked. */
  inputResponses: Record<string, unknown> | undefined;
  /** Sends `notifications/progress`, when the request asked for progress. */
  progress(progress: number, total?: number, message?: string): void;
  /** Sends `notifications/message` unless the client asked for a more severe level. */
  log(level: string, data: unknown, logger?: string): void;
}

type Awaitable<T> = T | Promise<T>;
export type ToolHandler = (
  args: Record<string, unknown>,
  ctx: FakeContext,
) => Awaitable<Record<string, unknown> | string>;
export type ResourceHandler = (uri: string, ctx: FakeContext) => Awaitable<Record<string, unknown> | string>;
export type PromptHandler = (
  args: Record<string, string>,
  ctx: FakeContext,
) => Awaitable<Record<string, unknown> | string>;

export interface FakePromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}

/**
 * A fault scripted with `fail(target, fault)`:
 * - `{ error: { code, message, data? } }`: a JSON-RPC error answer;
 * - `{ delay: ms }`: the normal answer, `ms` later (a cancel still aborts it);
 * - `{ hang: true }`: no answer until the client cancels;
 * - `{ isError: true, text? }`: a tool result that says the tool failed;
 * - `{ result }`: this result object as it is (a malformed or oversize one, say);
 * - `{ inputRequests, requestState? }`: ask the client for input first (modern: an
 *   `input_required` result; legacy: requests to the client), then run the handler with the answers;
 * - `{ listChanged: "tools" | "resources" | "prompts" }`: announce a list change, then answer;
 * - `{ close: true }`: hang up the connection (over stdio the process exits).
 */
export type FakeFault =
  | { error: { code: number; message: string; data?: unknown } }
  | { delay: number }
  | { hang: true }
  | { isError: true; text?: string }
  | { result: Record<string, unknown> }
  | {
      inputRequests: Record<string, { method: string; params?: Record<string, unknown> }>;
      requestState?: string;
    }
  | { listChanged: "tools" | "resources" | "prompts" }
  | { close: true };

/** One request the server received, for assertions. `cancelled` turns true when the client cancels it. */
export interface FakeCall {
  method: string;
  params: Record<string, unknown>;
  era: FakeEra;
  cancelled: boolean;
}

export interface FakeTool {
  definition: Record<string, unknown>;
  handler: ToolHandler;
}

export interface FakeResource {
  definition: Record<string, unknown>;
  handler: ResourceHandler;
}

export interface FakePrompt {
  definition: Record<string, unknown>;
  handler: PromptHandler;
}
