/** One list (resources, templates or prompts) gathered from every server that offers it. */
import type { Client } from "../client/client.js";
import { McpClientError } from "../shared/errors.js";
import { isObject } from "../shared/guards.js";
import type { ServerSlot } from "./server-slot.js";

/**
 * Every up server's list, in server order. A server that fails to list is warned about and
 * left out; the caller's abort rejects the whole gathering.
 */
export async function gather<T>(
  slots: readonly ServerSlot[],
  capability: "resources" | "prompts",
  list: (c: Client, o: { timeout: number; signal?: AbortSignal }) => Promise<T[]>,
  o: { timeout?: number; signal?: AbortSignal },
  hub: { listTimeout: number; warn(text: string): void },
): Promise<T[]> {
  const timeout = o.timeout ?? hub.listTimeout;
  const lists = await Promise.all(
    slots.map(async (slot) => {
      if (slot.down || !offers(slot.client, capability)) return [];
      try {
        return await list(slot.client, { timeout, ...(o.signal ? { signal: o.signal } : {}) });
      } catch (err) {
        if (!(err instanceof McpClientError)) throw err;
        hub.warn(`server "${slot.id}" did not list its ${capability}: ${err.message}`);
        return [];
      }
    }),
  );
  if (o.signal?.aborted) throw o.signal.reason;
  return lists.flat();
}

/** Whether a server declared a capability; one not ready yet is asked (it waits within the timeout). */
function offers(client: Client, capability: string): boolean {
  try {
    return isObject(client.serverInfo().capabilities[capability]);
  } catch {
    return true;
  }
}
