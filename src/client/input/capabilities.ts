/**
 * The client capabilities declared to servers: only those whose callbacks exist. Legacy servers
 * read them in `initialize`; modern servers in every request's `_meta`.
 */
import type { JsonObject } from "../../shared/guards.js";
import type { ResolvedInputOptions } from "./options.js";

export type InputKind = "sampling" | "elicitation" | "roots";

/** The input methods a server may ask, by the kind of callback that answers them. */
export const INPUT_METHODS: Readonly<Record<string, InputKind>> = {
  "sampling/createMessage": "sampling",
  "elicitation/create": "elicitation",
  "roots/list": "roots",
};

/** Whether the client declared the capability that `kind` needs. */
export function declares(o: ResolvedInputOptions, kind: InputKind): boolean {
  const h = o.handler;
  switch (kind) {
    case "sampling":
      return typeof h.sampling === "function";
    case "elicitation":
      return typeof h.elicitation === "function";
    case "roots":
      return typeof h.listRoots === "function";
  }
}

function common(o: ResolvedInputOptions): JsonObject {
  const caps: JsonObject = {};
  if (declares(o, "sampling")) {
    const sampling: JsonObject = {};
    if (o.sampling.context) sampling.context = {};
    if (o.sampling.tools) sampling.tools = {};
    caps.sampling = sampling;
  }
  if (declares(o, "elicitation")) {
    const elicitation: JsonObject = {};
    for (const mode of o.elicitationModes) elicitation[mode] = {};
    caps.elicitation = elicitation;
  }
  return caps;
}

/**
 * A client with no input callbacks declares none: one frozen object for all of them, not two
 * per client (~110 B, issue 26). Nothing changes the declared capabilities after they are made.
 */
const NONE: JsonObject = Object.freeze({}) as JsonObject;

const shared = (caps: JsonObject): JsonObject => (Object.keys(caps).length === 0 ? NONE : caps);

/** For `initialize`: `roots` carries `listChanged` (default true). */
export function legacyCapabilities(o: ResolvedInputOptions): JsonObject {
  const caps = common(o);
  if (declares(o, "roots")) caps.roots = o.roots.listChanged ? { listChanged: true } : {};
  return shared(caps);
}

/** For a modern request's `_meta`: the schema's `roots` has no `listChanged`. */
export function modernCapabilities(o: ResolvedInputOptions): JsonObject {
  const caps = common(o);
  if (declares(o, "roots")) caps.roots = {};
  return shared(caps);
}
