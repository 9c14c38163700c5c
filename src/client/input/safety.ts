/**
 * The safety checks that run in both eras, before the callback (`prepareInput`: is the request
 * declared, well formed and within limits; what the callback is shown) and after it
 * (`checkAnswer`: is the answer what the spec allows). A refusal carries the JSON-RPC code a
 * legacy server is answered with; in modern it fails the call (see mrtr.ts for the kinds).
 */
import { isObject, type JsonObject } from "../../shared/guards.js";
import { ErrorCodes } from "../../shared/jsonrpc.js";
import { declares, INPUT_METHODS, type InputKind } from "./capabilities.js";
import { checkFormAnswer, checkFormSchema, type FormSchema, fieldsOf } from "./form-schema.js";
import type { ElicitationMode, InputContext, ResolvedInputOptions } from "./options.js";
import { checkRootsAnswer } from "./roots.js";
import { checkElicitationUrl } from "./url-check.js";

/** A refused input request or answer. `reason` is a stable code; `message` goes on the wire. */
export interface Refusal {
  refused: true;
  code: number;
  message: string;
  reason: string;
}

/** An input request that passed the checks: what the callback gets. */
export interface Prepared {
  kind: InputKind;
  method: string;
  /** The params as the callback sees them (coerced and clamped). */
  params: JsonObject;
  /** The keys of `ctx` this request adds (mode, fields, url facts). */
  extra: Partial<InputContext>;
  mode?: ElicitationMode;
  form?: FormSchema;
}

export function refusal(code: number, reason: string, message: string): Refusal {
  return { refused: true, code, message, reason };
}

export function isRefusal(v: unknown): v is Refusal {
  return isObject(v) && v.refused === true;
}

const invalid = (reason: string, message: string) => refusal(ErrorCodes.invalidParams, reason, message);

/** Checks one input request before any callback runs. */
export function prepareInput(
  o: ResolvedInputOptions,
  method: string,
  rawParams: unknown,
): Prepared | Refusal {
  const kind = Object.hasOwn(INPUT_METHODS, method) ? INPUT_METHODS[method] : undefined;
  if (kind === undefined)
    return refusal(ErrorCodes.methodNotFound, "unknown_input_method", "Method not found");
  if (!declares(o, kind)) {
    return refusal(ErrorCodes.methodNotFound, "capability_not_declared", `Client does not support ${kind}`);
  }
  if (rawParams !== undefined && !isObject(rawParams))
    return invalid("invalid_params", "params must be an object");
  const params: JsonObject = { ...(rawParams ?? {}) };
  switch (kind) {
    case "sampling":
      return prepareSampling(o, method, params);
    case "elicitation":
      return prepareElicitation(o, method, params);
    case "roots":
      return { kind, method, params, extra: {} };
  }
}

function prepareSampling(o: ResolvedInputOptions, method: string, params: JsonObject): Prepared | Refusal {
  if (!Array.isArray(params.messages) || !params.messages.every(isObject)) {
    return invalid("invalid_sampling_request", "messages must be an array of messages");
  }
  const max = params.maxTokens;
  if (typeof max !== "number" || !Number.isSafeInteger(max) || max < 1) {
    return invalid("invalid_max_tokens", "maxTokens must be a positive integer");
  }
  params.maxTokens = Math.min(max, o.sampling.maxTokens);
  if (!o.sampling.tools && (params.tools !== undefined || params.toolChoice !== undefined)) {
    return invalid("sampling_tools_not_declared", "Client does not support tools in sampling");
  }
  if (params.includeContext !== undefined) {
    const allowed = o.sampling.context ? ["none", "thisServer", "allServers"] : ["none"];
    if (!allowed.includes(params.includeContext as string)) params.includeContext = "none";
  }
  return { kind: "sampling", method, params, extra: {} };
}

function prepareElicitation(o: ResolvedInputOptions, method: string, params: JsonObject): Prepared | Refusal {
  const mode = params.mode ?? "form";
  if (mode !== "form" && mode !== "url")
    return invalid("invalid_elicitation_mode", "Unknown elicitation mode");
  if (!o.elicitationModes.includes(mode)) {
    return invalid("elicitation_mode_not_offered", `Client does not support ${mode} elicitation`);
  }
  if (typeof params.message !== "string")
    return invalid("invalid_elicitation_request", "message must be a string");
  if (mode === "form") {
    const form = checkFormSchema(params.requestedSchema);
    if ("invalid" in form)
      return invalid("invalid_requested_schema", `Unsupported requestedSchema: ${form.invalid}`);
    return { kind: "elicitation", method, params, mode, form, extra: { mode, fields: fieldsOf(form) } };
  }
  const facts = checkElicitationUrl(params.url, o.origin);
  if ("invalid" in facts) return invalid("url_not_allowed", `Refused URL: ${facts.invalid}`);
  return { kind: "elicitation", method, params, mode, extra: { mode, ...facts } };
}

/**
 * Checks a callback's answer (not a refusal: that is the caller's). Returns the result to send,
 * with how many roots were left out, or a refusal answered `-32603`.
 */
export function checkAnswer(
  p: Prepared,
  answer: unknown,
): { result: JsonObject; dropped?: number } | Refusal {
  const bad = (reason: string, message: string) => refusal(ErrorCodes.internalError, reason, message);
  if (!isObject(answer)) return bad("invalid_answer", "The client's answer is not an object");
  switch (p.kind) {
    case "sampling": {
      const c = answer.content;
      const contentOk = isObject(c) || (Array.isArray(c) && c.every(isObject));
      if (
        (answer.role !== "assistant" && answer.role !== "user") ||
        !contentOk ||
        typeof answer.model !== "string"
      ) {
        return bad("invalid_sampling_result", "The client's sampling result is malformed");
      }
      return { result: answer };
    }
    case "elicitation": {
      const action = answer.action;
      if (action !== "accept" && action !== "decline" && action !== "cancel") {
        return bad("invalid_elicitation_action", "The client's elicitation action is invalid");
      }
      const result: JsonObject = { action };
      if (isObject(answer._meta)) result._meta = answer._meta;
      if (action !== "accept") return { result };
      if (p.mode === "url") {
        if (answer.content !== undefined)
          return bad("url_accept_with_content", "A URL elicitation carries no content");
        return { result };
      }
      const content = checkFormAnswer(p.form!, answer.content);
      if ("invalid" in content) {
        return bad("answer_does_not_fit_schema", `The answer does not fit the schema: ${content.invalid}`);
      }
      result.content = content.ok;
      return { result };
    }
    case "roots": {
      const checked = checkRootsAnswer(answer);
      if ("invalid" in checked)
        return bad("invalid_roots_result", `The client's roots are malformed: ${checked.invalid}`);
      return checked;
    }
  }
}
