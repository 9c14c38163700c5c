import { dirname, isAbsolute, resolve } from "node:path";
import type { Logger } from "../../client/types.js";
import { sanitizeText } from "../../shared/sanitize.js";
import { Secret } from "../../shared/secret.js";
import { isPlainObject } from "../../util/option-check.js";
import { FileReadError, readRegularFile } from "../../util/read-regular-file.js";
import { checkServerId, type HubServerConfig } from "../options.js";
import { type Env, type Interpolated, InterpolationError, interpolate } from "./interpolate.js";
import { readJson } from "./read-json.js";
import { isSecretByName } from "./secret-names.js";
import { holdVariableValues } from "./variable-secrets.js";

export interface LoadServersConfigOptions {
  /** Where `${VAR}` is looked up. Default `process.env`. */
  env?: Env;
  /** Where warnings go (unknown keys, unused `inputs`). Default: stderr. */
  logger?: Logger;
  /** The largest file read, in bytes. Default 1 MiB. */
  maxBytes?: number;
}

export const CONFIG_LIMITS = { maxBytes: 1024 * 1024, maxServers: 1_000 } as const;

/** The file's text; its failures as the loader's `TypeError`s. */
function readBounded(file: string, maxBytes: number, where: string): string {
  try {
    return readRegularFile(file, maxBytes);
  } catch (err) {
    const code = err instanceof FileReadError ? err.code : "unreadable";
    if (code === "not_a_file") throw new TypeError(`${where}: is not a regular file`);
    if (code === "too_large") throw new TypeError(`${where}: is larger than ${maxBytes} bytes`);
    throw new TypeError(`${where}: cannot be read (${code})`);
  }
}

/** Keys an entry may have, in either format. */
const ENTRY_KEYS = new Set([
  "type",
  "command",
  "args",
  "env",
  "cwd",
  "url",
  "serverUrl",
  "headers",
  "disabled",
]);
const TYPES = ["stdio", "http", "streamable-http", "sse"] as const;

const defaultLogger: Logger = { warn: (m) => console.error(`[conduit-mcp] warning: ${m}`) };

/**
 * Reads the server list of a desktop host's or editor's MCP configuration, as those programs
 * write it, and gives the hub's `servers` option:
 *
 * - `{ "mcpServers": { name: { command, args, env, cwd } | { url, headers, type? } } }`
 *   (Claude Desktop, Cursor, Windsurf; Windsurf's `serverUrl` too),
 * - `{ "servers": { name: { type, ... } }, "inputs": [...] }` (VS Code's `mcp.json`, comments
 *   allowed; also `{ "mcp": { "servers": ... } }` from its settings).
 *
 * `${VAR}`, `${env:VAR}` and `${VAR:-default}` are interpolated in `command`, `args`, `env`, `cwd`,
 * `url` and `headers`; env and header values built from variables (or written in place under a
 * secret's name: `secret-names.ts`) become `Secret`s, and what a
 * variable puts into `url` or `args` is scrubbed from every message (variable-secrets.ts). Entries with
 * `"disabled": true` are skipped; unknown keys are ignored with one warning each. A malformed
 * file is a `TypeError` naming the file, the entry and the key (never a value).
 */
export function loadServersConfig(
  pathOrObject: string | Record<string, unknown>,
  options: LoadServersConfigOptions = {},
): Record<string, HubServerConfig> {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("conduit-mcp: loadServersConfig options must be an object");
  }
  const env: Env = options.env ?? process.env;
  if (typeof env !== "object" || env === null)
    throw new TypeError('conduit-mcp: option "env" must be an object');
  const logger = options.logger ?? defaultLogger;
  if (typeof logger.warn !== "function")
    throw new TypeError('conduit-mcp: option "logger" must have a warn method');
  const maxBytes = options.maxBytes ?? CONFIG_LIMITS.maxBytes;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
    throw new TypeError('conduit-mcp: option "maxBytes" must be a positive integer');
  }

  let file: string;
  let doc: unknown;
  let baseDir: string | undefined;
  if (typeof pathOrObject === "string") {
    file = pathOrObject;
    const where = `conduit-mcp: ${shown(file)}`;
    let text = readBounded(file, maxBytes, where);
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    doc = readJson(text, where);
    baseDir = dirname(resolve(file));
  } else if (isPlainObject(pathOrObject)) {
    file = "<object>";
    doc = pathOrObject;
  } else {
    throw new TypeError("conduit-mcp: loadServersConfig takes a file path or a configuration object");
  }

  const where = `conduit-mcp: ${shown(file)}`;
  if (!isPlainObject(doc)) throw new TypeError(`${where}: must be a JSON object`);
  const { entries, inputs } = findEntries(doc, where);
  const warn = (text: string) => {
    try {
      logger.warn(sanitizeText(`${shown(file)}: ${text}`, { maxLength: 500 }));
    } catch {
      // A logger that throws must not stop the load.
    }
  };
  const names = Object.keys(entries);
  if (names.length > CONFIG_LIMITS.maxServers) {
    throw new TypeError(`${where}: lists more than ${CONFIG_LIMITS.maxServers} servers`);
  }
  const servers: Record<string, HubServerConfig> = {};
  const ids: string[] = [];
  let usedInputs = false;
  for (const name of names) {
    const at = `${where}: server ${shown(name)}`;
    try {
      checkServerId(name, ids);
    } catch (err) {
      throw new TypeError(`${where}: ${(err as Error).message.replace(/^conduit-mcp: /, "")}`);
    }
    const raw = entries[name];
    if (!isPlainObject(raw)) throw new TypeError(`${at}: must be an object`);
    if (own(raw, "disabled") !== undefined && typeof own(raw, "disabled") !== "boolean") {
      throw new TypeError(`${at}: "disabled" must be true or false`);
    }
    ids.push(name);
    if (own(raw, "disabled") === true) continue;
    for (const key of Object.keys(raw)) {
      if (!ENTRY_KEYS.has(key)) warn(`server ${shown(name)}: unknown key ${shown(key)} ignored`);
    }
    const entry = new Entry(raw, at, env, baseDir);
    servers[name] = entry.toServer();
    usedInputs ||= entry.usedInputs;
  }
  if (inputs !== undefined && inputs.length > 0 && !usedInputs) {
    warn('"inputs" is ignored: its prompts are not supported');
  }
  return servers;
}

/** The server map and VS Code's `inputs`, wherever the file's format keeps them. */
function findEntries(
  doc: Record<string, unknown>,
  where: string,
): { entries: Record<string, unknown>; inputs?: unknown[] } {
  const mcp = own(doc, "mcp");
  const holder =
    own(doc, "mcpServers") !== undefined || own(doc, "servers") !== undefined
      ? doc
      : isPlainObject(mcp)
        ? mcp
        : doc;
  const pick =
    own(holder, "mcpServers") !== undefined
      ? "mcpServers"
      : own(holder, "servers") !== undefined
        ? "servers"
        : null;
  if (pick === null) throw new TypeError(`${where}: has no "mcpServers" (or VS Code "servers") object`);
  const entries = own(holder, pick);
  if (!isPlainObject(entries)) throw new TypeError(`${where}: "${pick}" must be an object`);
  const inputs = own(holder, "inputs");
  if (inputs !== undefined && !Array.isArray(inputs))
    throw new TypeError(`${where}: "inputs" must be an array`);
  return { entries, ...(inputs ? { inputs } : {}) };
}

/** One entry of the file, read key by key (own keys only). */
class Entry {
  usedInputs = false;
  /** What variables put into `url` and `args` (see variable-secrets.ts). */
  readonly #fromEnv: string[] = [];
  constructor(
    readonly raw: Record<string, unknown>,
    readonly at: string,
    readonly env: Env,
    readonly baseDir: string | undefined,
  ) {}

  toServer(): HubServerConfig {
    const server = this.#server();
    holdVariableValues(server, this.#fromEnv);
    return server;
  }

  #server(): HubServerConfig {
    const type = this.#type();
    if (type === "stdio") {
      const command = this.#string("command");
      if (command === undefined || command.value.length === 0) this.#bad("command", "a non-empty string");
      const args = this.#stringArray("args");
      const env = this.#stringMap("env");
      const cwd = this.#string("cwd");
      return {
        transport: {
          type: "stdio",
          command: command.value,
          ...(args ? { args } : {}),
          ...(env ? { env: Object.entries(env).map(([k, v]) => [k, v] as const) } : {}),
          ...(cwd ? { cd: this.#directory(cwd.value) } : {}),
        },
      };
    }
    const urlKey = own(this.raw, "url") !== undefined ? "url" : "serverUrl";
    const url = this.#string(urlKey);
    if (url === undefined || url.value.length === 0) this.#bad("url", "a non-empty string");
    this.#fromEnv.push(...url.fromEnv);
    const headers = this.#stringMap("headers") ?? {};
    let bearer: Secret | undefined;
    const plain: Array<readonly [string, string | Secret]> = [];
    for (const [name, value] of Object.entries(headers)) {
      if (name.toLowerCase() !== "authorization") {
        plain.push([name, value]);
        continue;
      }
      // The transport sends credentials itself: a bearer token is its `auth`.
      const text = value instanceof Secret ? value.reveal() : value;
      const m = /^Bearer[ \t]+(\S+)\s*$/i.exec(text);
      if (!m) this.#bad(`headers.${name}`, '"Bearer <token>" (other schemes are not supported)');
      bearer = new Secret(m[1]!);
    }
    return {
      transport: {
        type: "http",
        url: url.value,
        ...(plain.length > 0 ? { headers: plain } : {}),
        ...(bearer ? { auth: { bearer } } : {}),
        ...(type === "sse" ? { legacySse: "only" as const } : {}),
      },
    };
  }

  #type(): "stdio" | "http" | "sse" {
    const t = own(this.raw, "type");
    const hasCommand = own(this.raw, "command") !== undefined;
    const hasUrl = own(this.raw, "url") !== undefined || own(this.raw, "serverUrl") !== undefined;
    if (t !== undefined && (typeof t !== "string" || !(TYPES as readonly string[]).includes(t))) {
      this.#bad("type", `one of ${TYPES.map((x) => `"${x}"`).join(", ")}`);
    }
    if (hasCommand && hasUrl)
      this.#bad("command", "given without a url (an entry is local or remote, not both)");
    if (t === "stdio" || (t === undefined && hasCommand)) return "stdio";
    if (t === "sse") return "sse";
    if (t !== undefined || hasUrl) return "http";
    throw new TypeError(`${this.at}: needs "command" (a local server) or "url" (a remote one)`);
  }

  /** A string value, interpolated; undefined when absent. */
  #string(key: string): Interpolated | undefined {
    const v = own(this.raw, key);
    if (v === undefined) return undefined;
    if (typeof v !== "string") this.#bad(key, "a string");
    return this.#interpolate(v, key);
  }

  #stringArray(key: string): string[] | undefined {
    const v = own(this.raw, key);
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) this.#bad(key, "an array of strings");
    return v.map((item, i) => {
      if (typeof item !== "string") this.#bad(`${key}[${i}]`, "a string");
      const r = this.#interpolate(item, `${key}[${i}]`);
      this.#fromEnv.push(...r.fromEnv);
      return r.value;
    });
  }

  /** `env` or `headers`: values built from variables, or named as secrets, become `Secret`s. */
  #stringMap(key: string): Record<string, string | Secret> | undefined {
    const v = own(this.raw, key);
    if (v === undefined) return undefined;
    if (!isPlainObject(v)) this.#bad(key, "an object of strings");
    const out: Record<string, string | Secret> = {};
    for (const [name, value] of Object.entries(v)) {
      if (typeof value !== "string") this.#bad(`${key}.${name}`, "a string");
      const r = this.#interpolate(value, `${key}.${name}`);
      out[name] = r.fromVariables || isSecretByName(name, r.value) ? new Secret(r.value) : r.value;
    }
    return out;
  }

  #interpolate(text: string, key: string): Interpolated {
    try {
      return interpolate(text, this.env);
    } catch (err) {
      if (!(err instanceof InterpolationError)) throw err;
      if (err.message.includes('"inputs"')) this.usedInputs = true;
      throw new TypeError(`${this.at}: ${shown(key)} ${err.message}`);
    }
  }

  #directory(dir: string): string {
    if (isAbsolute(dir)) return dir;
    if (this.baseDir === undefined)
      this.#bad("cwd", "an absolute path (a relative one needs a file to be relative to)");
    return resolve(this.baseDir, dir);
  }

  #bad(key: string, expected: string): never {
    throw new TypeError(`${this.at}: ${shown(key)} must be ${expected}`);
  }
}

function own(obj: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** A name from the file as shown in a message: quoted, printable, short. */
function shown(text: string): string {
  return JSON.stringify(sanitizeText(text, { maxLength: 80 }));
}
