/** Clients for the HTTP tests, all holding one Secret token that must never show anywhere. */
import { randomBytes } from "node:crypto";
import { inspect } from "node:util";
import { expect } from "vitest";
import { Client, type ClientOptions, type HttpTransportOptions, Secret } from "../../src/index.js";
import { type EventRecorder, recordEvents } from "./events.js";
import { type SilentLogger, silentLogger } from "./logger.js";

/** The token every test client sends; its value must appear in no error, log line or event. */
export const TOKEN_VALUE = `tok_${randomBytes(18).toString("hex")}`;
export const TOKEN = new Secret(TOKEN_VALUE);

let counter = 0;

export interface HttpTestClients {
  create(
    url: string,
    transport?: Partial<Omit<HttpTransportOptions, "type" | "url">>,
    options?: Partial<ClientOptions>,
  ): Client;
  /** Every logger line of every client made here. */
  readonly loggers: SilentLogger[];
  /** Every telemetry event published while the recorder ran. */
  readonly events: EventRecorder;
  /** Errors a test saw; checked for the token by `assertNoLeak`. */
  readonly errors: unknown[];
  seen<T>(error: T): T;
  closeAll(): Promise<void>;
  /** Fails when the token's value shows in any log line, event or recorded error. */
  assertNoLeak(): void;
}

export function httpTestClients(prefix: string): HttpTestClients {
  const open = new Set<Client>();
  const loggers: SilentLogger[] = [];
  const errors: unknown[] = [];
  const events = recordEvents();
  return {
    loggers,
    events,
    errors,
    create(url, transport = {}, options = {}) {
      const logger = silentLogger();
      loggers.push(logger);
      counter += 1;
      const client = new Client({
        name: `${prefix}-${process.pid}-${counter}`,
        transport: { type: "http", url, auth: { bearer: TOKEN }, ...transport } as HttpTransportOptions,
        logger,
        requestTimeout: 10_000,
        ...options,
      });
      open.add(client);
      return client;
    },
    seen(error) {
      errors.push(error);
      return error;
    },
    async closeAll() {
      const all = [...open];
      open.clear();
      await Promise.all(all.map((c) => c.close().catch(() => {})));
    },
    assertNoLeak() {
      const texts: string[] = [];
      for (const l of loggers) for (const line of l.lines) texts.push(line.message);
      for (const e of events.events) texts.push(JSON.stringify(e), inspect(e, { depth: 6 }));
      for (const err of errors) {
        texts.push(String(err), JSON.stringify(err) ?? "", inspect(err, { depth: 6, showHidden: true }));
        const cause = (err as { cause?: unknown })?.cause;
        if (cause !== undefined) texts.push(String(cause), inspect(cause, { depth: 6, showHidden: true }));
        const data = (err as { data?: unknown })?.data;
        if (data !== undefined) texts.push(inspect(data, { depth: 6 }));
      }
      for (const t of texts) expect(t).not.toContain(TOKEN_VALUE);
    },
  };
}
