import { Client, type ClientOptions } from "../../src/index.js";

let counter = 0;

/** A client name no other test in the run uses, so telemetry can be filtered by it. */
export function uniqueName(prefix = "test"): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}`;
}

/** Creates clients and closes every one of them in `closeAll()` (call it from afterEach/afterAll). */
export class ClientPool {
  readonly #open = new Set<Client>();

  create(options: ClientOptions): Client {
    const client = new Client(options);
    this.#open.add(client);
    return client;
  }

  async closeAll(): Promise<void> {
    const clients = [...this.#open];
    this.#open.clear();
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
  }
}

/**
 * A pool closed when the current test finishes: for `describe.concurrent`, where `afterEach`
 * cannot tell tests apart. Pass the test context (`async ({ onTestFinished }) => ...`).
 */
export function poolForTest(context: { onTestFinished(fn: () => Promise<void>): void }): ClientPool {
  const pool = new ClientPool();
  context.onTestFinished(() => pool.closeAll());
  return pool;
}
