/**
 * Whether a config file's literal env or header value is a secret by what it is called or what
 * it holds. Desktop hosts' configs often carry tokens written in place (`"GITHUB_TOKEN": "ghp_..."`)
 * rather than through a variable; scrubbing every literal would mangle ordinary words
 * (`NODE_ENV: "production"` would hide "production" from every message), so a literal is a
 * secret when its name says so (and it looks like one: eight characters or more, no spaces, not
 * a number) or it is a URL with credentials in it.
 */

/** Words of a name that mark its value as a secret (`OPENAI_API_KEY`, `X-Auth-Token`, `pgPassword`). */
const SECRET_WORDS = new Set([
  "token",
  "secret",
  "password",
  "passwd",
  "pwd",
  "passphrase",
  "key",
  "apikey",
  "auth",
  "authorization",
  "credential",
  "credentials",
  "cookie",
  "pat",
  "jwt",
  "bearer",
  "dsn",
  "signature",
]);
/** A word that ends so is one of them run together (`GHTOKEN`, `clientsecret`, `dbpassword`). */
const SECRET_ENDINGS = ["token", "secret", "password", "apikey", "accesskey", "secretkey", "privatekey"];
/** `scheme://user:password@host`: a connection string with its credentials. */
const URL_CREDENTIALS = /[a-z][a-z0-9+.-]*:\/\/[^/@\s:]*:[^/@\s]+@/i;

export function isSecretByName(name: string, value: string): boolean {
  if (URL_CREDENTIALS.test(value)) return true;
  // A switch or a number under a secret-sounding name (`AUTH_MODE: "oauth"`, `TOKEN_TTL: "3600"`)
  // is not one; scrubbing it would hide that word everywhere.
  if (value.length < 8 || /\s/.test(value) || /^\d+$/.test(value)) return false;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  return words.some((w) => SECRET_WORDS.has(w) || SECRET_ENDINGS.some((end) => w.endsWith(end)));
}
