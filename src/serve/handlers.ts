/**
 * The request handlers and the name of each SDK server serve builds, kept by sdk.ts's recording
 * `Server` so that the fast path (fast-call.ts) runs the very handlers the SDK would. Keyed by the
 * server object, forgotten with it.
 */
type AnyHandler = (...args: never[]) => Promise<unknown>;

const handlers = new WeakMap<object, Map<string, AnyHandler>>();
const infos = new WeakMap<object, { name: string; version: string }>();

export function keepHandler(server: object, method: string, handler: AnyHandler): void {
  const m = handlers.get(server) ?? new Map<string, AnyHandler>();
  handlers.set(server, m);
  m.set(method, handler);
}

export function keptHandler(server: object, method: string): AnyHandler | undefined {
  return handlers.get(server)?.get(method);
}

export function keepInfo(server: object, info: { name: string; version: string }): void {
  infos.set(server, { name: info.name, version: info.version });
}

/** The name and version a server was built with. */
export function infoOf(server: object): { name: string; version: string } {
  return infos.get(server) ?? { name: "conduit-mcp", version: "0" };
}
