/**
 * Reading a resource and getting a prompt from the page. Only what the hub listed can be asked
 * for: the (serverId, uri) of a listed resource, the (serverId, name) of a listed prompt, with
 * only the arguments that prompt declares. The page never names an arbitrary URI (a template's
 * expansion or a `file:` path the server did not offer).
 */
import type { Hub } from "../hub/hub.js";
import { clean, failureOf } from "./feed.js";

export type Answer = { status: number; body: unknown };

const bad = (message: string, status = 400): Answer => ({ status, body: { error: { message } } });
/** The page's reads wait at most this long for a listing or a server. */
const TIMEOUT = 15_000;
const IMAGE_TYPE = /^image\/[a-z0-9.+-]+$/i;
const BASE64 = /^[A-Za-z0-9+/=\s]*$/;

/** `POST /api/resource { serverId, uri }`. */
export async function readListedResource(hub: Hub, b: Record<string, unknown>): Promise<Answer> {
  const { serverId, uri } = b;
  if (typeof serverId !== "string" || typeof uri !== "string") return bad("serverId and uri must be strings");
  const listed = await hub.listResources({ timeout: TIMEOUT });
  if (!listed.some((r) => r.serverId === serverId && r.uri === uri)) {
    return bad("not a resource the hub listed", 403);
  }
  return settle(async () => {
    const read = await hub.readResource(serverId, uri, { timeout: TIMEOUT });
    return { contents: read.contents.map(contentView) };
  });
}

/**
 * What the page shows of one item: text as text; a blob as its size and type, and an image's
 * data only when it is an image/* type with base64 data (the page makes a data: URL of it).
 */
export function contentView(c: Record<string, unknown>): Record<string, unknown> {
  const mimeType = typeof c.mimeType === "string" ? clean(c.mimeType, 200) : null;
  const uri = clean(c.uri ?? "", 2000);
  if (typeof c.text === "string") return { uri, mimeType, text: clean(c.text, 200_000) };
  if (typeof c.blob !== "string") return { uri, mimeType, unknown: clean(JSON.stringify(c), 2000) };
  const blob = c.blob.replace(/\s/g, "");
  const size = Math.floor((blob.length * 3) / 4) - (blob.endsWith("==") ? 2 : blob.endsWith("=") ? 1 : 0);
  const image = typeof mimeType === "string" && IMAGE_TYPE.test(mimeType) && BASE64.test(blob);
  return { uri, mimeType, size, ...(image ? { image: blob } : {}) };
}

/** `POST /api/prompt { serverId, name, arguments }`: string arguments the prompt declares. */
export async function getListedPrompt(hub: Hub, b: Record<string, unknown>): Promise<Answer> {
  const { serverId, name, arguments: args = {} } = b;
  if (typeof serverId !== "string" || typeof name !== "string")
    return bad("serverId and name must be strings");
  if (typeof args !== "object" || args === null || Array.isArray(args))
    return bad("arguments must be an object");
  const prompt = (await hub.listPrompts({ timeout: TIMEOUT })).find(
    (p) => p.serverId === serverId && p.name === name,
  );
  if (!prompt) return bad("not a prompt the hub listed", 403);
  const declared = new Set((prompt.arguments ?? []).map((a) => a.name));
  const values: Record<string, string> = {};
  for (const [k, v] of Object.entries(args)) {
    if (!declared.has(k)) return bad(`the prompt declares no argument ${clean(k, 100)}`);
    if (typeof v !== "string") return bad("prompt arguments are strings");
    values[k] = v;
  }
  return settle(async () => {
    const got = await hub.getPrompt(serverId, name, values, { timeout: TIMEOUT });
    return {
      description: typeof got.description === "string" ? got.description : null,
      messages: got.messages.map((m) => ({ role: clean(m.role, 20), content: m.content })),
    };
  });
}

/** A failed read is an answer the page shows (200 with `error`), as a failed call is. */
async function settle(fn: () => Promise<unknown>): Promise<Answer> {
  try {
    return { status: 200, body: { result: await fn() } };
  } catch (err) {
    return { status: 200, body: { error: failureOf(err) } };
  }
}
