/**
 * The live panes' source: a server-sent event stream fed by the library's telemetry events (of
 * this hub's clients only), the hub's list changes, and what the desk adds (logs, notifications,
 * pending forms, call progress). Everything is sent as JSON data; the page inserts it as text.
 */
import type { ServerResponse } from "node:http";
import { sanitizeText } from "../shared/sanitize.js";
import { type EventName, subscribe } from "../telemetry/events.js";

/** The telemetry events the page shows, and which of their fields. */
const FIELDS: Partial<Record<EventName, readonly string[]>> = {
  "request:stop": ["method", "status", "errorKind", "duration"],
  "request:cancel": ["method", "reason"],
  "tool_call:stop": ["toolName", "status", "errorKind", "isError", "decision", "duration"],
  "connection:transition": ["from", "to", "reason", "attempt"],
  notification: ["method"],
  "log:dropped": [],
  "tool:definition_changed": ["toolName"],
  "hub:server_failed": ["errorKind", "reason", "attempt"],
  "hub:server_restarted": ["downFor"],
  "policy:decision": ["toolName", "decision", "rule"],
};

/**
 * A page whose stream holds this much unsent (a frozen or suspended tab, a reader that stopped
 * reading) loses the stream: kept, it grew by every event for good (a server's log flood is
 * megabytes a second). The page's EventSource connects again by itself when it wakes.
 */
export const MAX_UNSENT = 1024 * 1024;

/** At most this many events a second reach the page; the rest are counted and reported once. */
const PER_SECOND = 200;

export class Feed {
  readonly #streams = new Set<ServerResponse>();
  readonly #offs: Array<() => void> = [];
  #window = 0;
  #sent = 0;
  #dropped = 0;

  /** `hubName` picks this hub's events: its own (`client` = the name) and its clients' (`name/id`). */
  constructor(hubName: string) {
    for (const [name, fields] of Object.entries(FIELDS) as Array<[EventName, readonly string[]]>) {
      this.#offs.push(
        subscribe(name, (event) => {
          const client = String(event.client ?? "");
          if (client !== hubName && !client.startsWith(`${hubName}/`)) return;
          const data: Record<string, unknown> = { event: name, serverId: event.serverId ?? null };
          for (const f of fields) data[f] = clean(event[f]);
          this.send("telemetry", data);
        }),
      );
    }
  }

  /** Keeps `res` open as an event stream until it closes. */
  attach(res: ServerResponse): void {
    res.writeHead(200, { "Content-Type": "text/event-stream; charset=utf-8", Connection: "keep-alive" });
    res.write(": open\n\n");
    this.#streams.add(res);
    res.on("close", () => this.#streams.delete(res));
  }

  send(type: string, data: Record<string, unknown>): void {
    if (this.#streams.size === 0) return;
    const now = Math.floor(Date.now() / 1000);
    if (now !== this.#window) {
      if (this.#dropped > 0) this.#write("dropped", { count: this.#dropped });
      this.#window = now;
      this.#sent = 0;
      this.#dropped = 0;
    }
    if (++this.#sent > PER_SECOND) {
      this.#dropped++;
      return;
    }
    this.#write(type, { ...data, time: Date.now() });
  }

  #write(type: string, data: Record<string, unknown>): void {
    // JSON.stringify escapes newlines, so one `data:` line carries the whole event.
    const frame = `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const res of this.#streams) {
      if (res.writableLength > MAX_UNSENT) {
        this.#streams.delete(res);
        res.destroy();
      } else res.write(frame);
    }
  }

  close(): void {
    for (const off of this.#offs.splice(0)) off();
    for (const res of this.#streams) res.end();
    this.#streams.clear();
  }
}

/** Server-supplied strings are sanitised and clamped before they leave. */
export function clean(value: unknown, max = 2000): unknown {
  if (typeof value === "string") return sanitizeText(value, { maxLength: max });
  return value;
}

/** A failure as the page shows it: the error's kind (else "error") and its sanitised message. */
export function failureOf(err: unknown): { kind: string; message: string } {
  const e = err as { kind?: unknown; message?: unknown };
  return {
    kind: typeof e.kind === "string" ? e.kind : "error",
    message: clean(String(e.message ?? err), 1000) as string,
  };
}
