/**
 * What the list commands share: a list the server may not offer, optional resource templates,
 * and whether a listing lacks a name (the unknown tool and unknown prompt rules).
 */
import { type Client, McpClientError } from "../../index.js";
import type { Requester } from "../requester.js";

export function isMethodNotFound(err: McpClientError): boolean {
  return err.detail !== undefined && "jsonrpc" in err.detail && err.detail.jsonrpc === -32601;
}

/** Templates are optional for a server with resources: "method not found" means none. */
export async function listTemplates(
  client: Client,
  options: { timeout: number; signal: AbortSignal | undefined },
) {
  try {
    return await client.listAllResourceTemplates(options);
  } catch (err) {
    if (McpClientError.is(err, "protocol") && isMethodNotFound(err)) return [];
    throw err;
  }
}

/** Whether the server declares a capability (`resources`, `prompts`, `tools`). */
export function offers(client: Client, capability: string): boolean {
  const value = client.serverInfo().capabilities[capability];
  return typeof value === "object" && value !== null;
}

/**
 * A list the server may not offer: none when it does not declare the capability or answers
 * "method not found" (-32601), as watch does; any other failure stands.
 */
export async function offered<T>(
  client: Client,
  capability: string,
  list: () => Promise<T[]>,
): Promise<T[] | null> {
  if (!offers(client, capability)) return null;
  try {
    return await list();
  } catch (err) {
    if (McpClientError.is(err, "protocol") && isMethodNotFound(err)) return null;
    throw err;
  }
}

/**
 * Whether the server's listing of `capability` lacks `name` (a server that lists none of them lacks
 * it); `false` when the listing cannot be had, so that the failure's own answer stands.
 */
export async function unlisted(
  client: Client,
  capability: "tools" | "prompts",
  name: string,
  request: Requester,
): Promise<boolean> {
  let items: Array<{ name: string }> | null;
  try {
    items = await offered<{ name: string }>(client, capability, () =>
      request<Array<{ name: string }>>((o) =>
        capability === "tools" ? client.listAllTools(o) : client.listAllPrompts(o),
      ),
    );
  } catch {
    return false;
  }
  return !items?.some((i) => i.name === name);
}
