import { McpClientError } from "../shared/errors.js";

// node:net and node:dns are taken from Node on first use: loading them costs milliseconds at
// import, and a client that never checks a host needs neither.
const isIP = (input: string): number => process.getBuiltinModule("node:net").isIP(input);

/**
 * Which server addresses a client may reach over HTTP.
 *
 * - `"any"`: no check (the operator picked the URL).
 * - `"publicOnly"`: the URL's host is resolved before every request and every address must be a
 *   public unicast one; loopback, private (RFC 1918), link-local, unique-local, CGNAT, multicast,
 *   unspecified, broadcast, reserved and documentation ranges are refused, and so are IPv6 forms
 *   that embed an IPv4 address of those ranges (IPv4-mapped, NAT64, 6to4, Teredo), unless a CIDR
 *   of `allowPrivate` admits them. The connection is then made to a vetted address, so a DNS
 *   answer that changes between the check and the connect (DNS rebinding) cannot redirect it.
 */
export type ServerUrlPolicy = "any" | "publicOnly";

/** Resolves a host name to its addresses (IPv4 or IPv6 literals). */
export type Resolver = (host: string) => Promise<string[]>;

/** A CIDR as `"10.0.0.0/8"` or `"fd00::/8"`, or a single address. Checked without any I/O. */
export function isCidr(value: unknown): value is string {
  if (typeof value !== "string") return false;
  const slash = value.indexOf("/");
  const addr = slash < 0 ? value : value.slice(0, slash);
  const family = isIP(addr);
  if (family === 0) return false;
  if (slash < 0) return true;
  const bits = value.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

/** The URL's host without IPv6 brackets (`[::1]` -> `::1`). */
export function bareHost(hostname: string): string {
  return hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
}

/**
 * Whether `host` is a loopback host without asking DNS: `localhost`, a `*.localhost` name
 * (RFC 6761), an address in 127.0.0.0/8, `::1`, or an IPv4-mapped form of a loopback address.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = bareHost(hostname).toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  const family = isIP(host);
  if (family === 4) return host.startsWith("127.");
  if (family === 6) {
    if (host === "::1" || /^0*:(0*:){0,6}0*1$/.test(host) || host === "0:0:0:0:0:0:0:1") return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(host);
    return mapped !== null && mapped[1]!.startsWith("127.");
  }
  return false;
}

type IpAddr = typeof import("ipaddr.js");
type Parsed = ReturnType<IpAddr["parse"]>;

let ipaddrModule: Promise<IpAddr> | undefined;

/** ipaddr.js is loaded the first time an address is checked, not at import. */
function loadIpaddr(): Promise<IpAddr> {
  ipaddrModule ??= import("ipaddr.js").then((m) => (m as unknown as { default: IpAddr }).default ?? m);
  return ipaddrModule;
}

/** IPv6 ranges whose addresses carry an IPv4 address that must be checked in turn. */
const EMBEDS_V4 = new Set(["ipv4Mapped", "rfc6145", "rfc6052", "6to4", "teredo"]);

/** Checks addresses against the public-only rule, with the `allowPrivate` exceptions. */
export class AddressPolicy {
  readonly #ip: IpAddr;
  readonly #allow: Array<[Parsed, number]>;

  private constructor(ip: IpAddr, allow: Array<[Parsed, number]>) {
    this.#ip = ip;
    this.#allow = allow;
  }

  /** Builds a policy; `allowPrivate` must already be valid CIDRs (see {@link isCidr}). */
  static async create(allowPrivate: readonly string[]): Promise<AddressPolicy> {
    const ip = await loadIpaddr();
    const allow = allowPrivate.map((c): [Parsed, number] => {
      if (!c.includes("/")) {
        const a = ip.parse(c);
        return [a, a.kind() === "ipv4" ? 32 : 128];
      }
      return ip.parseCIDR(c) as [Parsed, number];
    });
    return new AddressPolicy(ip, allow);
  }

  /** `null` when `address` may be reached; otherwise the name of the range that refuses it. */
  refusal(address: string): string | null {
    const ip = this.#ip;
    if (!ip.isValid(address)) return "invalid_address";
    const parsed = ip.parse(address);
    if (this.#allowed(parsed)) return null;
    const range = parsed.range();
    if (parsed.kind() === "ipv6" && EMBEDS_V4.has(range)) {
      const v4 = embeddedV4(ip, parsed as InstanceType<IpAddr["IPv6"]>, range);
      if (!v4) return range;
      if (this.#allowed(v4)) return null;
      const inner = v4.range();
      return inner === "unicast" ? null : inner;
    }
    return range === "unicast" ? null : range;
  }

  #allowed(address: Parsed): boolean {
    for (const [net, bits] of this.#allow) {
      if (net.kind() === address.kind() && address.match(net, bits)) return true;
    }
    return false;
  }
}

function embeddedV4(ip: IpAddr, a: InstanceType<IpAddr["IPv6"]>, range: string): Parsed | undefined {
  const p = a.parts;
  switch (range) {
    case "ipv4Mapped":
    case "rfc6145":
    case "rfc6052":
      return ip.IPv4.parse(`${p[6]! >> 8}.${p[6]! & 0xff}.${p[7]! >> 8}.${p[7]! & 0xff}`);
    case "6to4":
      return ip.IPv4.parse(`${p[1]! >> 8}.${p[1]! & 0xff}.${p[2]! >> 8}.${p[2]! & 0xff}`);
    case "teredo": {
      // The client's address is the last 32 bits, inverted.
      const hi = ~p[6]! & 0xffff;
      const lo = ~p[7]! & 0xffff;
      return ip.IPv4.parse(`${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`);
    }
    default:
      return undefined;
  }
}

/** The system resolver: every address `getaddrinfo` returns for `host`. */
export const systemResolver: Resolver = async (host) =>
  (await process.getBuiltinModule("node:dns/promises").lookup(host, { all: true, verbatim: true })).map(
    (a) => a.address,
  );

/**
 * Resolves `hostname` and checks every address. Resolves with the vetted addresses; rejects with
 * `kind: "denied"` (`reason: "server_url_policy"`, `data: { range }`) when any address is refused,
 * or `kind: "transport"` (`reason: "dns_failed"`) when the host cannot be resolved.
 */
export async function vetHost(
  hostname: string,
  policy: AddressPolicy,
  resolver: Resolver,
): Promise<string[]> {
  const host = bareHost(hostname);
  let addresses: string[];
  if (isIP(host) !== 0) {
    addresses = [host];
  } else {
    try {
      const got = await resolver(host);
      addresses = Array.isArray(got) ? got.filter((a): a is string => typeof a === "string") : [];
    } catch {
      throw new McpClientError("transport", "dns_failed");
    }
    if (addresses.length === 0) throw new McpClientError("transport", "dns_failed");
  }
  for (const address of addresses) {
    const range = policy.refusal(address);
    if (range !== null) throw new McpClientError("denied", "server_url_policy", { range });
  }
  return addresses;
}
