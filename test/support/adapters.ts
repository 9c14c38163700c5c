import { fileURLToPath } from "node:url";
import { nodeServer } from "./index.js";

export const ADAPTER_HOSTILE = fileURLToPath(
  new URL("../fixtures/adapter-hostile-server.mjs", import.meta.url),
);

/** The hostile adapter fixture over stdio (see its header). */
export function hostileTransport() {
  return nodeServer(ADAPTER_HOSTILE, [], { stdinGrace: 100, termGrace: 200 });
}

/** Characters no sanitised text may hold: escapes, C0/C1 controls, bidi and zero-width marks. */
export const UNSAFE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2066-\u2069]/;
