import { McpClientError } from "../shared/errors.js";
import { sanitizeText } from "../shared/sanitize.js";
import type { ToolCall } from "../shared/tool-call.js";
import { channelFor, type Telemetry } from "./events.js";
import type { OpenTelemetryBridge, ToolCallSpan } from "./open-telemetry.js";
import { capturePayload } from "./payload-capture.js";

/** Read once: whether anyone listens is a property read per call, not a lookup. */
const START = channelFor("tool_call:start");
const STOP = channelFor("tool_call:stop");
const EXCEPTION = channelFor("tool_call:exception");

/** How a client traces its tool calls: the events, the optional OTel bridge, payload capture. */
export interface ToolCallTracing {
  telemetry: Telemetry;
  otel: OpenTelemetryBridge | null;
  capture: { redact: (payload: unknown) => unknown; maxBytes: number } | null;
}

/** What a finished call reports: a tool result's parts, or null for a task handed back. */
export interface ToolCallOutcome {
  content: unknown;
  isError: boolean;
  structuredContent: unknown;
}

/** Counted while the call runs, read when it ends (`tool_call:stop`). */
export interface ToolCallCounts {
  /** Requests sent (input rounds included). */
  rounds: { count: number };
  /** Attempts, as a retrying layer (governance) left them. */
  attempts: number;
  /** The policy's decision, when governance made one. */
  decision: string | null;
}

/** One call as the tracing step runs it: its counts, what its result says, and the steps inside. */
export interface TracedCall<R> extends ToolCallCounts {
  readonly call: ToolCall;
  /** What the span and the stop event say of a result (null for a task handed back). */
  outcome(result: R): ToolCallOutcome | null;
  /** The steps inside the tracing step, under `span` when OpenTelemetry is on. */
  run(span: ToolCallSpan | undefined): Promise<R>;
}

/** Whether a call is traced at all: a span to make, or anyone listening to its events. */
export function tracingOn(tracing: ToolCallTracing): boolean {
  return tracing.otel !== null || START.hasSubscribers || STOP.hasSubscribers || EXCEPTION.hasSubscribers;
}

/**
 * Runs one tool call inside its `tool_call` span (OpenTelemetry, when on) and its
 * `tool_call:start` / `stop` / `exception` events (when anyone listens). Callers ask
 * `tracingOn` first, so nothing is built for tracing that is off.
 */
export function traceToolCall<R>(tracing: ToolCallTracing, traced: TracedCall<R>): Promise<R> {
  const events = START.hasSubscribers || STOP.hasSubscribers || EXCEPTION.hasSubscribers;
  if (tracing.otel === null) return events ? withEvents(tracing, traced, undefined) : traced.run(undefined);
  const { name, arguments: args, signal } = traced.call;
  const span = tracing.otel.startToolCall(name);
  const capture = tracing.capture;
  if (capture) span.payload("arguments", capturePayload(capture, args));
  const work = events ? withEvents(tracing, traced, span) : traced.run(span);
  return work.then(
    (result) => {
      const out = traced.outcome(result);
      if (capture && out) span.payload("result", capturePayload(capture, out));
      span.end({ isError: out ? out.isError : null });
      return result;
    },
    (err: unknown) => {
      span.end({ error: err, cancelled: isAbort(signal, err) });
      throw err;
    },
  );
}

/** The call's `tool_call:start` / `stop` / `exception` events around its steps. */
async function withEvents<R>(
  tracing: ToolCallTracing,
  traced: TracedCall<R>,
  span: ToolCallSpan | undefined,
): Promise<R> {
  const { name, arguments: args, signal } = traced.call;
  const counts = traced;
  const tel = tracing.telemetry;
  const start = Date.now();
  const toolName = sanitizeText(name, { maxLength: 128 });
  const capture = tracing.capture;
  tel.emit("tool_call:start", () => ({
    toolName,
    ...(capture ? { arguments: capturePayload(capture, args) } : {}),
  }));
  try {
    const result = await traced.run(span);
    const out = traced.outcome(result);
    tel.emit("tool_call:stop", () => ({
      toolName,
      status: "ok",
      errorKind: null,
      isError: out ? out.isError : null,
      rounds: counts.rounds.count,
      attempts: counts.attempts,
      decision: counts.decision,
      duration: Date.now() - start,
      ...(capture ? { result: out ? capturePayload(capture, out) : null } : {}),
    }));
    return result;
  } catch (err) {
    const aborted = isAbort(signal, err);
    if (err instanceof McpClientError || aborted) {
      tel.emit("tool_call:stop", () => ({
        toolName,
        status: aborted ? "cancelled" : "error",
        errorKind: err instanceof McpClientError ? err.kind : null,
        isError: null,
        rounds: counts.rounds.count,
        attempts: counts.attempts,
        decision: counts.decision,
        duration: Date.now() - start,
        ...(capture ? { result: null } : {}),
      }));
    } else {
      tel.emit("tool_call:exception", () => ({ toolName, duration: Date.now() - start }));
    }
    throw err;
  }
}

/** An abort is the caller's choice, not an error kind. */
function isAbort(signal: AbortSignal | undefined, err: unknown): boolean {
  return signal?.aborted === true && err === signal.reason;
}
