import type { Grant, GrantKey, GrantStore } from "./types.js";

export type { Grant, GrantKey, GrantStore };

/** Grants in a Map, for the life of the governor that made it. */
export class MemoryGrantStore implements GrantStore {
  readonly #grants = new Map<string, Grant>();

  get(key: GrantKey): Grant | undefined {
    const g = this.#grants.get(slot(key.principal, key.serverId, key.tool));
    return g && g.digest === key.digest ? g : undefined;
  }

  latest(principal: string | null, serverId: string, tool: string): Grant | undefined {
    return this.#grants.get(slot(principal, serverId, tool));
  }

  put(grant: Grant): void {
    this.#grants.set(slot(grant.principal, grant.serverId, grant.tool), grant);
  }

  revoke(serverId: string, tool?: string): void {
    for (const [k, g] of this.#grants) {
      if (g.serverId === serverId && (tool === undefined || g.tool === tool)) this.#grants.delete(k);
    }
  }
}

/** One map key per (principal, server, tool): JSON, so no separator can be forged by a name. */
function slot(principal: string | null, serverId: string, tool: string): string {
  return JSON.stringify([principal, serverId, tool]);
}
