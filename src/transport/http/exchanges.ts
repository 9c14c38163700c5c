import type { RequestId } from "../../shared/jsonrpc.js";
import type { Exchange } from "./exchange-state.js";

/**
 * The transport's requests in flight, by id. The one in flight when nothing else is (the usual
 * case of a client calling one request at a time) is kept in a field; a map is made only when a
 * second one is in flight at once, and kept (a map made and dropped per request would cost more
 * than it saves). A client that never had two at once holds no map (~180 B, issue 26).
 */
export class Exchanges {
  #soloId: RequestId | undefined;
  #solo: Exchange | undefined;
  #more: Map<RequestId, Exchange> | undefined;

  get(id: RequestId): Exchange | undefined {
    return this.#solo !== undefined && this.#soloId === id ? this.#solo : this.#more?.get(id);
  }

  set(id: RequestId, ex: Exchange): void {
    if (this.#solo !== undefined && this.#soloId === id) this.#solo = ex;
    else if (this.#solo === undefined && !this.#more?.has(id)) {
      this.#soloId = id;
      this.#solo = ex;
    } else {
      this.#more ??= new Map();
      this.#more.set(id, ex);
    }
  }

  delete(id: RequestId): void {
    if (this.#solo !== undefined && this.#soloId === id) {
      this.#solo = undefined;
      this.#soloId = undefined;
    } else this.#more?.delete(id);
  }

  /** Every one in flight, as a list of its own (the caller may clear while it walks). */
  values(): Exchange[] {
    const all = this.#solo === undefined ? [] : [this.#solo];
    if (this.#more) for (const ex of this.#more.values()) all.push(ex);
    return all;
  }

  clear(): void {
    this.#solo = undefined;
    this.#soloId = undefined;
    this.#more?.clear();
  }
}
