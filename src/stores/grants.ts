/**
 * The grant store: approvals a user gave (`remember: "session"`), keyed with the definition's
 * digest, so a changed definition stops matching everywhere the store is shared.
 */

type Awaitable<T> = T | Promise<T>;

/** The definition a user approves: what the digest is computed over. */
export interface ToolDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** Whose approval of which tool, as the user saw it. Two principals never share a grant. */
export interface GrantKey {
  principal: string | null;
  serverId: string;
  tool: string;
  digest: string;
}

export interface Grant extends GrantKey {
  /** The definition that was approved (shown again when it changes). */
  definition: ToolDefinition;
  grantedAt: number;
}

/**
 * Where remembered grants (`remember: "session"`) live. A grant matches a call only when all four
 * parts of its key are equal, so a changed definition (another digest) asks again. The default is
 * in memory; a fleet can keep them in a shared store by implementing this.
 */
export interface GrantStore {
  /** The grant with exactly this key, if any. */
  get(key: GrantKey): Awaitable<Grant | undefined>;
  /** The newest grant of `(principal, serverId, tool)` whatever its digest (to show what changed). */
  latest(principal: string | null, serverId: string, tool: string): Awaitable<Grant | undefined>;
  /** Keeps a grant; it replaces the grants of the same `(principal, serverId, tool)`. */
  put(grant: Grant): Awaitable<void>;
  /** Forgets every grant of `serverId` (of one tool, when `tool` is given). */
  revoke(serverId: string, tool?: string): Awaitable<void>;
}

/** Grants in a Map, for the life of the governor (or the stores) that made it. */
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
