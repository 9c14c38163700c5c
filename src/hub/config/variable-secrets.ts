/**
 * Values a config file took from environment variables into a server's `url` or `args`: an API
 * key in a URL's path or query, a `--token` argument. They cannot be `Secret`s where they are
 * used (a URL, an argv), so each becomes a live `Secret` beside them: every error message, log
 * line and CLI output is then scrubbed of it. Held for the life of the process (a config is
 * loaded a few times at most; one `Secret` per distinct value), so that no later message escapes.
 */
import { Secret } from "../../shared/secret.js";

const held = new Map<string, Secret>();
const byServer = new WeakMap<object, readonly Secret[]>();

/** Makes `values` live secrets, remembered as those of `server` (an entry the loader returns). */
export function holdVariableValues(server: object, values: readonly string[]): void {
  const secrets: Secret[] = [];
  for (const value of values) {
    // Short values are not tracked by Secret either: scrubbing them would mangle ordinary text.
    if (value.length < 4) continue;
    let secret = held.get(value);
    if (!secret) {
      secret = new Secret(value);
      held.set(value, secret);
    }
    secrets.push(secret);
  }
  if (secrets.length > 0) byServer.set(server, secrets);
}

/** The secrets `holdVariableValues` made for a server entry of a loaded config (none otherwise). */
export function variableSecretsOf(server: object): readonly Secret[] {
  return byServer.get(server) ?? [];
}
