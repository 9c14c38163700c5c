/**
 * What a tool list costs a model, in tokens: the list as sent (JSON), counted with OpenAI's
 * o200k_base encoding from `js-tiktoken` (an optional peer, loaded on the first call). For
 * Anthropic the count is an estimate: Claude's tokenizer is not public (the Messages API's
 * count_tokens endpoint gives the exact figure), and the two encodings differ by some percent.
 */
import { dependencyMissing } from "../shared/errors.js";

export type ManifestProvider = "openai" | "anthropic";

export interface ManifestTokensOptions {
  /** Whose list it is. Default "openai". */
  provider?: ManifestProvider;
}

interface Encoder {
  encode(text: string): number[];
}

let encoder: Promise<Encoder> | undefined;

function loadEncoder(): Promise<Encoder> {
  encoder ??= Promise.all([import("js-tiktoken/lite"), import("js-tiktoken/ranks/o200k_base")]).then(
    ([lite, ranks]) => new lite.Tiktoken(ranks.default),
    (err: unknown) => {
      encoder = undefined;
      throw dependencyMissing("js-tiktoken", err);
    },
  );
  return encoder;
}

/** The tokens `tools` cost as one request's tool list (`provider` picks whose list it is). */
export async function toolManifestTokens(
  tools: readonly unknown[],
  options: ManifestTokensOptions = {},
): Promise<number> {
  if (!Array.isArray(tools)) throw new TypeError("conduit-mcp: tools must be an array");
  const provider = options.provider ?? "openai";
  if (provider !== "openai" && provider !== "anthropic") {
    throw new TypeError('conduit-mcp: option "provider" must be "openai" or "anthropic"');
  }
  const enc = await loadEncoder();
  return enc.encode(JSON.stringify(tools)).length;
}
