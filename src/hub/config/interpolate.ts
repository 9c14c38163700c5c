/**
 * `${VAR}`, `${env:VAR}` and `${VAR:-default}` in configuration values, from an environment
 * map. An unset variable without a default is an error naming it, never an empty string passed
 * on. Values are expanded once: a variable's value that holds `${...}` stays as it is.
 */

export type Env = Readonly<Record<string, string | undefined>>;

/** Why a value could not be interpolated (the loader adds the file, entry and key). */
export class InterpolationError extends Error {
  override readonly name = "InterpolationError";
}

const VARIABLE = /\$\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface Interpolated {
  value: string;
  /** At least one variable was replaced: the value may hold a secret. */
  fromVariables: boolean;
  /** The values taken from the environment (not defaults written in the file), in order. */
  fromEnv: string[];
}

export function interpolate(text: string, env: Env): Interpolated {
  let fromVariables = false;
  const fromEnv: string[] = [];
  const value = text.replace(VARIABLE, (_whole, inner: string) => {
    fromVariables = true;
    const r = resolve(inner, env);
    if (r.fromEnv) fromEnv.push(r.value);
    return r.value;
  });
  // A `${` that was never closed is a mistake, not text to pass on.
  if (text.replace(VARIABLE, "").includes("${"))
    throw new InterpolationError("has a `$` and `{` that open a variable without its closing `}`");
  return { value, fromVariables, fromEnv };
}

function resolve(inner: string, env: Env): { value: string; fromEnv: boolean } {
  if (inner.startsWith("input:")) {
    throw new InterpolationError(
      `uses \${${safe(inner)}}: VS Code "inputs" prompts are not supported; pass the value in an environment variable (\${env:NAME})`,
    );
  }
  let spec = inner.startsWith("env:") ? inner.slice(4) : inner;
  let fallback: string | undefined;
  const at = spec.indexOf(":-");
  if (at !== -1) {
    fallback = spec.slice(at + 2);
    spec = spec.slice(0, at);
  }
  if (!NAME.test(spec)) {
    throw new InterpolationError(
      `has \${${safe(inner)}}, which is not a variable (\${NAME}, \${env:NAME} or \${NAME:-default})`,
    );
  }
  const found = Object.hasOwn(env, spec) ? env[spec] : undefined;
  if (found !== undefined && found !== "") return { value: found, fromEnv: true };
  if (fallback !== undefined) return { value: fallback, fromEnv: false };
  throw new InterpolationError(
    `uses the variable ${spec}, which is ${found === "" ? "empty" : "not set"} (give a default with \${${spec}:-...})`,
  );
}

/** A variable reference as shown in a message: short, printable ASCII only. */
function safe(text: string): string {
  const s = text.replace(/[^\x20-\x7e]/g, "?");
  return s.length > 40 ? `${s.slice(0, 39)}…` : s;
}
