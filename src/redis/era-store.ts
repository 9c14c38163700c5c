/** Eras in Redis: a server's last negotiated session, kept for its `ttlMs` (`PX`). */
import type { EraRecord, EraStore } from "../stores/eras.js";
import type { RedisConn } from "./conn.js";
import type { Keys } from "./keys.js";

export class RedisEraStore implements EraStore {
  readonly #c: RedisConn;
  readonly #k: Keys;

  constructor(conn: RedisConn, keys: Keys) {
    this.#c = conn;
    this.#k = keys;
  }

  async get(serverKey: string): Promise<EraRecord | undefined> {
    const raw = await this.#c.read("eras", this.#k.era(serverKey));
    if (raw === undefined) return undefined;
    let r: unknown;
    try {
      r = JSON.parse(raw);
    } catch {
      r = undefined;
    }
    // The client checks the fields it uses; a value that is not even an object is reported here.
    if (typeof r === "object" && r !== null && !Array.isArray(r)) return r as EraRecord;
    this.#c.reject("eras", "malformed");
    return undefined;
  }

  set(serverKey: string, record: EraRecord): void {
    const ttl = Math.round(record.at + record.ttlMs - Date.now());
    if (ttl <= 0) return;
    const name = this.#k.era(serverKey);
    const value = JSON.stringify(record);
    if (!this.#c.fits("eras", value)) return;
    this.#c.write("eras", (c) => c.set(name, value, { expiration: { type: "PX", value: ttl } }));
    const landed = JSON.stringify({ t: "era", e: name });
    this.#c.write("eras", (c) => c.publish(this.#k.channel, landed));
  }

  claim(serverKey: string, ms: number): Promise<(() => void) | null> {
    const name = this.#k.era(serverKey);
    return this.#c.claim(this.#k.eraClaim(serverKey), (n) => n.t === "era" && n.e === name, ms);
  }

  delete(serverKey: string): void {
    const name = this.#k.era(serverKey);
    this.#c.write("eras", (c) => c.del(name));
  }
}
