/**
 * The era store: what a server negotiated last (era, version, capabilities), so the next
 * connect of any client sharing the store starts from it instead of probing the server again.
 */

type Awaitable<T> = T | Promise<T>;

/** A server's last negotiated session, as plain data. */
export interface EraRecord {
  era: "modern" | "legacy";
  version: string;
  capabilities: Record<string, unknown>;
  serverInfo: { name: string; version: string; [k: string]: unknown } | null;
  instructions: string | null;
  /** Modern only: the versions the server listed. */
  supportedVersions: string[] | null;
  /** Epoch milliseconds: when it was negotiated. */
  at: number;
  /** How long it may be used from `at` (the discover result's `ttlMs`, else an hour). */
  ttlMs: number;
}

export interface EraStore {
  /** The record of the server named `serverKey`, if one is kept. */
  get(serverKey: string): Awaitable<EraRecord | undefined>;
  set(serverKey: string, record: EraRecord): Awaitable<void>;
  /** Forgets it (the server refused what it said before). */
  delete(serverKey: string): Awaitable<void>;
  /**
   * Optional: one probe per fleet. Called when no record is kept: a release function when the
   * caller should negotiate (it holds the claim for `ms` and releases it when done), null once
   * another holder's record landed, the claim was released or lapsed, or `ms` passed (the
   * caller reads again, and negotiates itself on a miss).
   */
  claim?(serverKey: string, ms: number): Promise<(() => void) | null>;
}

export class MemoryEraStore implements EraStore {
  readonly #eras = new Map<string, EraRecord>();

  get(serverKey: string): EraRecord | undefined {
    const r = this.#eras.get(serverKey);
    if (r && Date.now() >= r.at + r.ttlMs) {
      this.#eras.delete(serverKey);
      return undefined;
    }
    return r;
  }

  set(serverKey: string, record: EraRecord): void {
    this.#eras.set(serverKey, record);
  }

  delete(serverKey: string): void {
    this.#eras.delete(serverKey);
  }
}
