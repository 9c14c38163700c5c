/**
 * Resource URIs behind a hub, made unique per server and reversible: `conduit://<server>/<uri>`,
 * the server's own URI (or URI template) appended as written, so a template stays a template and
 * two servers' `file:///a` never collide. The server part is the sanitised id (as in tool names).
 */
import { sanitizeNamePart } from "../util/qualify.js";

const PREFIX = "conduit://";

export function mapUri(serverId: string, uri: string): string {
  return `${PREFIX}${sanitizeNamePart(serverId)}/${uri}`;
}

/** The server and its own URI for a mapped URI, or null when it names no server of `serverIds`. */
export function unmapUri(
  uri: string,
  serverIds: readonly string[],
): { serverId: string; uri: string } | null {
  if (!uri.startsWith(PREFIX)) return null;
  const rest = uri.slice(PREFIX.length);
  const slash = rest.indexOf("/");
  if (slash <= 0 || slash === rest.length - 1) return null;
  const part = rest.slice(0, slash);
  const serverId = serverIds.find((id) => sanitizeNamePart(id) === part);
  return serverId === undefined ? null : { serverId, uri: rest.slice(slash + 1) };
}
