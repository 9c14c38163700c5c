/**
 * What a `FakeServer`'s sessions read and record into: who it is, its tools, resources and
 * prompts, every request and notification received, and the faults scripted with `fail`.
 * `FakeServer` (fake-server.ts) adds the builders that tell the connected sessions of a change,
 * and serving; a session (fake-session.ts) sees the server only as this state.
 */
import type {
  FakeCall,
  FakeEra,
  FakeFault,
  FakePrompt,
  FakeResource,
  FakeServerOptions,
  FakeTool,
} from "./fake-types.js";

interface ScriptedFault {
  fault: FakeFault;
  left: number;
}

export class FakeServerState {
  readonly info: { name: string; version: string };
  readonly eras: readonly FakeEra[];
  readonly instructions: string | undefined;
  /** Every request received, in order, over every connection. */
  readonly calls: FakeCall[] = [];
  /** Every notification received (cancellations, `initialized`, ...). */
  readonly notifications: Array<{ method: string; params: Record<string, unknown> }> = [];
  readonly tools = new Map<string, FakeTool>();
  readonly resources = new Map<string, FakeResource>();
  readonly prompts = new Map<string, FakePrompt>();
  readonly #faults = new Map<string, ScriptedFault>();

  constructor(options: FakeServerOptions = {}) {
    const eras = options.eras ?? ["modern", "legacy"];
    if (!Array.isArray(eras) || eras.length === 0 || !eras.every((e) => e === "modern" || e === "legacy")) {
      throw new TypeError('conduit-mcp: FakeServer option "eras" must list "modern" and/or "legacy"');
    }
    this.info = { name: options.name ?? "fake", version: options.version ?? "1.0.0" };
    this.eras = [...eras];
    this.instructions = options.instructions;
  }

  /**
   * Scripts a fault for `target`: a tool name, a resource uri, a prompt name, or a method
   * (`"tools/list"`, `"server/discover"`). It applies to the next `times` requests (default: all,
   * until `heal`).
   */
  fail(target: string, fault: FakeFault, options: { times?: number } = {}): this {
    if (typeof target !== "string" || target.length === 0)
      throw new TypeError("conduit-mcp: fail() needs a target");
    if (typeof fault !== "object" || fault === null)
      throw new TypeError("conduit-mcp: fail() needs a fault object");
    const times = options.times ?? Number.POSITIVE_INFINITY;
    if (!(times >= 1)) throw new TypeError('conduit-mcp: fail() option "times" must be at least 1');
    this.#faults.set(target, { fault, left: times });
    return this;
  }

  /** Clears the faults of `target`, or every fault. */
  heal(target?: string): this {
    if (target === undefined) this.#faults.clear();
    else this.#faults.delete(target);
    return this;
  }

  /** The requests of one method (and, for tools/call, one tool). */
  callsOf(method: string, name?: string): FakeCall[] {
    return this.calls.filter((c) => c.method === method && (name === undefined || c.params.name === name));
  }

  /** @internal The fault for `method` or `target`, counted as used. */
  takeFault(method: string, target: string | undefined): FakeFault | undefined {
    for (const key of target === undefined ? [method] : [method, target]) {
      const f = this.#faults.get(key);
      if (!f) continue;
      f.left -= 1;
      if (f.left <= 0) this.#faults.delete(key);
      return f.fault;
    }
    return undefined;
  }
}
