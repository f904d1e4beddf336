import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { err, ok, type Result } from './result';

/**
 * Address classification for subscription URLs. A subscriber's URL is untrusted (issue 6): the host
 * must not reach our own network, the cloud metadata service or anything that is not the public
 * internet, unless an explicit allow-list says so (local development).
 *
 * Only `public` is deliverable. Embedded IPv4 addresses (IPv4-mapped `::ffff:a.b.c.d`, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16`) are classified by the IPv4 address they carry, so
 * `::ffff:127.0.0.1` is loopback and `2002:0a00:0001::` is private.
 */
export type AddressClass =
  | 'public'
  | 'private'
  | 'loopback'
  | 'link-local'
  | 'unique-local'
  | 'metadata'
  | 'shared'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'benchmarking'
  | 'reserved';

export interface AddressClassification {
  /** The address as given. */
  readonly address: string;
  readonly family: 4 | 6;
  readonly class: AddressClass;
  /** How an IPv4 address was carried inside an IPv6 one, when it was. */
  readonly via?: 'ipv4-mapped' | 'nat64' | '6to4';
  /** The embedded IPv4 address, when `via` is set. */
  readonly embedded?: string;
}

const CLASS_LABEL: Record<AddressClass, string> = {
  public: 'public',
  private: 'private (RFC 1918)',
  loopback: 'loopback',
  'link-local': 'link-local',
  'unique-local': 'unique-local (fc00::/7)',
  metadata: 'a cloud metadata service address',
  shared: 'carrier-grade NAT space (100.64.0.0/10)',
  unspecified: 'unspecified ("this network")',
  multicast: 'multicast',
  broadcast: 'broadcast',
  documentation: 'reserved for documentation',
  benchmarking: 'reserved for benchmarking',
  reserved: 'reserved / not globally routable',
};

/** Human wording for an address class, for error messages: `loopback`, `an ipv4-mapped form of …`. */
export function describeClass(c: AddressClassification): string {
  const label = CLASS_LABEL[c.class];
  return c.via ? `the ${c.via} form of ${c.embedded}, which is ${label}` : label;
}

// --- IPv4 ---------------------------------------------------------------------------------------

/** Strict dotted-quad (what `isIP` accepts) to a 32-bit unsigned number. */
function ipv4ToNumber(address: string): number | undefined {
  if (isIP(address) !== 4) return undefined;
  const parts = address.split('.').map(Number);
  return (((parts[0] ?? 0) << 24) | ((parts[1] ?? 0) << 16) | ((parts[2] ?? 0) << 8) | (parts[3] ?? 0)) >>> 0;
}

function numberToIpv4(n: number): string {
  return [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/**
 * inet_aton(3) forms: `2130706433`, `0x7f.1`, `017700000001`, `127.1`. WHATWG URL parsing already
 * normalizes these to dotted quads, but hostnames also reach us from allow-lists and resolvers,
 * and some HTTP stacks pass such strings to inet_aton: recognizing them here means they are always
 * judged as the address they denote, never as a name.
 */
export function parseLooseIpv4(host: string): string | undefined {
  const parts = host.split('.');
  if (parts.length < 1 || parts.length > 4) return undefined;
  const values: number[] = [];
  for (const part of parts) {
    let value: number;
    if (/^0x[0-9a-f]*$/i.test(part)) value = part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16);
    else if (/^0[0-7]+$/.test(part)) value = Number.parseInt(part.slice(1), 8);
    else if (/^(0|[1-9][0-9]*)$/.test(part)) value = Number(part);
    else return undefined;
    if (!Number.isSafeInteger(value)) return undefined;
    values.push(value);
  }
  const last = values.pop() ?? 0;
  if (values.some((v) => v > 255)) return undefined;
  const lastBytes = 4 - values.length;
  if (last >= 2 ** (8 * lastBytes)) return undefined;
  let n = 0;
  for (const v of values) n = n * 256 + v;
  n = n * 2 ** (8 * lastBytes) + last;
  return numberToIpv4(n);
}

type V4Range = readonly [base: string, prefix: number, cls: AddressClass];

// Most specific first: the first match wins.
const V4_RANGES: readonly V4Range[] = [
  ['169.254.169.254', 32, 'metadata'], // AWS, GCP, Azure, OCI instance metadata
  ['100.100.100.200', 32, 'metadata'], // Alibaba Cloud metadata
  ['168.63.129.16', 32, 'metadata'], // Azure WireServer
  ['255.255.255.255', 32, 'broadcast'],
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const V4_TABLE = V4_RANGES.map(([base, prefix, cls]) => {
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return { base: ((ipv4ToNumber(base) ?? 0) & mask) >>> 0, mask, cls };
});

function classifyV4Number(n: number): AddressClass {
  for (const r of V4_TABLE) if ((n & r.mask) >>> 0 === r.base) return r.cls;
  return 'public';
}

// --- IPv6 ---------------------------------------------------------------------------------------

function ipv6ToBigInt(address: string): bigint | undefined {
  if (isIP(address) !== 6) return undefined;
  let s = address;
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = ipv4ToNumber(tail);
    if (v4 === undefined) return undefined;
    s = `${s.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(':') : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const fill = halves.length === 2 ? 8 - head.length - rest.length : 0;
  const groups = [...head, ...Array<string>(fill).fill('0'), ...rest];
  if (groups.length !== 8) return undefined;
  let n = 0n;
  for (const g of groups) n = (n << 16n) | BigInt(Number.parseInt(g, 16));
  return n;
}

type V6Rule =
  | { readonly base: bigint; readonly prefix: number; readonly cls: AddressClass }
  | { readonly base: bigint; readonly prefix: number; readonly embed: 'ipv4-mapped' | 'nat64' | '6to4' };

function v6(base: string, prefix: number, cls: AddressClass): V6Rule {
  return { base: ipv6ToBigInt(base) ?? 0n, prefix, cls };
}
function v6Embed(base: string, prefix: number, embed: 'ipv4-mapped' | 'nat64' | '6to4'): V6Rule {
  return { base: ipv6ToBigInt(base) ?? 0n, prefix, embed };
}

// Most specific first. Anything outside 2000::/3 (global unicast) that no rule names is reserved.
const V6_RULES: readonly V6Rule[] = [
  v6('::', 128, 'unspecified'),
  v6('::1', 128, 'loopback'),
  v6('fd00:ec2::254', 128, 'metadata'), // AWS IMDS over IPv6
  v6Embed('::ffff:0:0', 96, 'ipv4-mapped'),
  v6('::ffff:0:0:0', 96, 'reserved'), // SIIT IPv4-translated
  v6('::', 96, 'reserved'), // deprecated IPv4-compatible (::a.b.c.d, ::7f00:1)
  v6Embed('64:ff9b::', 96, 'nat64'),
  v6('64:ff9b:1::', 48, 'reserved'), // local-use NAT64: translates to anything, including private space
  v6('100::', 64, 'reserved'), // discard-only
  v6('2001:db8::', 32, 'documentation'),
  v6('2001::', 32, 'reserved'), // Teredo: the client address is obfuscated, refuse rather than decode
  v6('2001::', 23, 'reserved'), // IETF protocol assignments (benchmarking, ORCHID…)
  v6Embed('2002::', 16, '6to4'),
  v6('3fff::', 20, 'documentation'),
  v6('fc00::', 7, 'unique-local'),
  v6('fe80::', 10, 'link-local'),
  v6('fec0::', 10, 'reserved'), // deprecated site-local
  v6('ff00::', 8, 'multicast'),
];

const MASK128 = (1n << 128n) - 1n;
function maskOf(prefix: number): bigint {
  return prefix === 0 ? 0n : (MASK128 << BigInt(128 - prefix)) & MASK128;
}
const GLOBAL_UNICAST = { base: ipv6ToBigInt('2000::') ?? 0n, mask: maskOf(3) };

function classifyV6(address: string, n: bigint): AddressClassification {
  for (const rule of V6_RULES) {
    const mask = maskOf(rule.prefix);
    if ((n & mask) !== (rule.base & mask)) continue;
    if ('cls' in rule) return { address, family: 6, class: rule.cls };
    const v4 = rule.embed === '6to4' ? Number((n >> 80n) & 0xffffffffn) : Number(n & 0xffffffffn);
    return {
      address,
      family: 6,
      class: classifyV4Number(v4),
      via: rule.embed,
      embedded: numberToIpv4(v4),
    };
  }
  if ((n & GLOBAL_UNICAST.mask) !== GLOBAL_UNICAST.base) return { address, family: 6, class: 'reserved' };
  return { address, family: 6, class: 'public' };
}

/**
 * Classifies an IP address (IPv4 dotted or loose form, IPv6 with or without brackets). Returns
 * undefined when the string is not an IP address at all (then it is a hostname).
 */
export function classifyAddress(input: string): AddressClassification | undefined {
  const address = input.startsWith('[') && input.endsWith(']') ? input.slice(1, -1) : input;
  const v4 = ipv4ToNumber(address) ?? ipv4ToNumber(parseLooseIpv4(address) ?? '');
  if (v4 !== undefined) return { address, family: 4, class: classifyV4Number(v4) };
  const n = ipv6ToBigInt(address);
  if (n !== undefined) return classifyV6(address, n);
  return undefined;
}

// --- Allow-list ---------------------------------------------------------------------------------

/** A port of a service on this machine that no webhook may reach (the runtime's own). */
export interface ReservedPort {
  readonly port: number;
  /** What listens there, for the refusal message (`the HTTP API`, `DynamoDB Local`). */
  readonly what: string;
}

export interface AllowListInput {
  /** CIDRs (`127.0.0.1/32`, `10.0.0.0/8`, `::1/128`) or single addresses. */
  readonly cidrs?: readonly string[];
  /** Exact hostnames (`hooks.internal`) or `*.suffix` wildcards; their addresses are not checked. */
  readonly hostnames?: readonly string[];
  /**
   * Ports refused on every non-public address, even an allowed one: the local runtime's own
   * servers (API, simulator, DynamoDB Local), which a subscription must never be able to call and
   * read back through the delivery log. A function when some are only known after start-up.
   */
  readonly reservedPorts?: readonly ReservedPort[] | (() => readonly ReservedPort[]);
}

/** A compiled allow-list; build it with `compileAllowList`. */
export interface AllowList {
  readonly allowsAddress: (address: string) => boolean;
  readonly allowsHostname: (hostname: string) => boolean;
  /** What owns this port when it is reserved, undefined otherwise. */
  readonly reservedPort: (port: number) => ReservedPort | undefined;
  readonly input: AllowListInput;
}

/**
 * The entries of a user's allow-list setting (`--allow-webhook-host`, `CARHOOK_WEBHOOK_ALLOW_HOSTS`):
 * an IP address or CIDR (`192.168.1.20`, `10.0.0.0/8`, `::1`), a hostname (`hooks.lan`) or a
 * `*.suffix` wildcard. Sorted into the allow-list's two kinds; compileAllowList checks each.
 */
export function parseAllowEntries(entries: readonly string[]): AllowListInput {
  const cidrs: string[] = [];
  const hostnames: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === '') continue;
    const address = entry.split('/')[0] ?? '';
    const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
    if (isIP(bare) !== 0) cidrs.push(entry.includes('/') ? entry.replace(address, bare) : bare);
    else hostnames.push(entry);
  }
  return { cidrs, hostnames };
}

export interface AllowListError {
  readonly kind: 'Malformed';
  readonly field: string;
  readonly value: string;
  readonly message: string;
}

/**
 * Compiles an allow-list (for local development: it overrides the address policy for what it
 * names). Invalid entries are an error naming the entry, never silently ignored.
 */
export function compileAllowList(input: AllowListInput): Result<AllowList, AllowListError> {
  const blocks = new BlockList();
  for (const [i, raw] of (input.cidrs ?? []).entries()) {
    const field = `allowList.cidrs[${i}]`;
    const [addr = '', prefixText] = raw.trim().split('/');
    const family = isIP(addr);
    const prefix = prefixText === undefined ? (family === 6 ? 128 : 32) : Number(prefixText);
    const max = family === 6 ? 128 : 32;
    if (family === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > max || prefixText === '') {
      return err({ kind: 'Malformed', field, value: raw, message: `${field}: "${raw}" is not a valid CIDR` });
    }
    blocks.addSubnet(addr, prefix, family === 6 ? 'ipv6' : 'ipv4');
  }
  const exact = new Set<string>();
  const suffixes: string[] = [];
  for (const [i, raw] of (input.hostnames ?? []).entries()) {
    const name = raw.trim().toLowerCase().replace(/\.$/, '');
    const bare = name.startsWith('*.') ? name.slice(2) : name;
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(bare)) {
      const field = `allowList.hostnames[${i}]`;
      return err({
        kind: 'Malformed',
        field,
        value: raw,
        message: `${field}: "${raw}" is not a valid hostname`,
      });
    }
    if (name.startsWith('*.')) suffixes.push(`.${bare}`);
    else exact.add(bare);
  }
  const reserved = input.reservedPorts;
  return ok({
    input,
    reservedPort: (port) =>
      (typeof reserved === 'function' ? reserved() : (reserved ?? [])).find((r) => r.port === port),
    allowsAddress: (address) => {
      const family = isIP(address);
      if (family === 0) return false;
      return blocks.check(address, family === 6 ? 'ipv6' : 'ipv4');
    },
    allowsHostname: (hostname) => {
      const h = hostname.toLowerCase().replace(/\.$/, '');
      return exact.has(h) || suffixes.some((s) => h.endsWith(s));
    },
  });
}

// --- Address guard ------------------------------------------------------------------------------

export interface AddressRefused {
  readonly kind: 'AddressRefused';
  readonly hostname: string;
  readonly address: string;
  readonly classification: AddressClassification;
  readonly message: string;
}

/**
 * Is this address (and port, when given) allowed for this hostname? The allow-list overrides by
 * address (CIDR) or by hostname; otherwise only `public` addresses pass. On a non-public address
 * the allow-list's reserved ports stay refused whatever allowed it.
 */
export function checkAddress(
  hostname: string,
  address: string,
  allowList?: AllowList,
  port?: number,
): Result<AddressClassification, AddressRefused> {
  const classification = classifyAddress(address) ?? { address, family: 4, class: 'reserved' as const };
  if (classification.class === 'public') return ok(classification);
  const effective = classification.via && classification.embedded ? classification.embedded : address;
  const allowed =
    allowList !== undefined &&
    (allowList.allowsAddress(address) ||
      allowList.allowsAddress(effective) ||
      allowList.allowsHostname(hostname));
  if (allowed) {
    const reserved = port === undefined ? undefined : allowList?.reservedPort(port);
    if (!reserved) return ok(classification);
    const where = hostname === address ? address : `"${hostname}" (${address})`;
    return err({
      kind: 'AddressRefused',
      hostname,
      address,
      classification,
      message: `port ${port} on ${where} is Carhook's own ${reserved.what}; webhooks may not reach it`,
    });
  }
  const what = describeClass(classification);
  const message =
    hostname === address
      ? `host ${address} is ${what}; webhooks may not reach it`
      : `host "${hostname}" resolves to ${address}, which is ${what}; webhooks may not reach it`;
  return err({ kind: 'AddressRefused', hostname, address, classification, message });
}

// --- Resolution ---------------------------------------------------------------------------------

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** All A/AAAA addresses of a name. Injectable so tests never touch real DNS. */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** getaddrinfo, as the HTTP stack would use it (hosts file included), every address. */
export const systemResolver: Resolver = async (hostname) => {
  const all = await dnsLookup(hostname, { all: true, order: 'verbatim' });
  return all.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export interface ResolutionFailed {
  readonly kind: 'Unresolvable';
  readonly hostname: string;
  readonly message: string;
}

/**
 * Resolves a hostname and checks every address: one refused address refuses the name (a name
 * that mixes public and private answers is the shape of a rebinding attack).
 */
export async function resolveChecked(
  hostname: string,
  resolve: Resolver,
  allowList?: AllowList,
  port?: number,
): Promise<Result<readonly ResolvedAddress[], AddressRefused | ResolutionFailed>> {
  const literal = classifyAddress(hostname);
  if (literal) {
    const checked = checkAddress(hostname, literal.address, allowList, port);
    if (!checked.ok) return checked;
    const address =
      literal.family === 4 ? (parseLooseIpv4(literal.address) ?? literal.address) : literal.address;
    return ok([{ address, family: literal.family }]);
  }
  let addresses: readonly ResolvedAddress[];
  try {
    addresses = await resolve(hostname);
  } catch (cause) {
    const code = (cause as { code?: unknown } | null)?.code;
    const why = typeof code === 'string' ? code : cause instanceof Error ? cause.message : String(cause);
    return err({
      kind: 'Unresolvable',
      hostname,
      message: `host "${hostname}" could not be resolved (${why})`,
    });
  }
  if (addresses.length === 0) {
    return err({ kind: 'Unresolvable', hostname, message: `host "${hostname}" has no A or AAAA address` });
  }
  for (const a of addresses) {
    const checked = checkAddress(hostname, a.address, allowList, port);
    if (!checked.ok) return checked;
  }
  return ok(addresses);
}

/** What a guarded lookup refused, kept on the error node hands back to the request. */
export class GuardedLookupError extends Error {
  readonly kind: 'AddressRefused' | 'Unresolvable';
  readonly code: string;
  readonly detail: AddressRefused | ResolutionFailed;
  constructor(detail: AddressRefused | ResolutionFailed) {
    super(detail.message);
    this.name = 'GuardedLookupError';
    this.kind = detail.kind;
    this.code = detail.kind === 'AddressRefused' ? 'EADDRREFUSED' : 'ENOTFOUND';
    this.detail = detail;
  }
}

/**
 * A `lookup` for `http.request` / `net.connect`: resolves with the injected resolver, checks every
 * address (with the port the request goes to, when given) and hands the socket only the addresses
 * it checked. The socket connects to exactly what
 * was validated, with no second resolution in between, which is what defeats DNS rebinding.
 */
export function guardedLookup(resolve: Resolver, allowList?: AllowList, port?: number): LookupFunction {
  return (hostname, options, callback) => {
    const family = typeof options === 'object' && options ? options.family : undefined;
    const all = typeof options === 'object' && options ? options.all === true : false;
    resolveChecked(hostname, resolve, allowList, port).then(
      (result) => {
        if (!result.ok) {
          callback(new GuardedLookupError(result.error) as NodeJS.ErrnoException, '', 0);
          return;
        }
        const wanted =
          family === 4 || family === 6 ? result.value.filter((a) => a.family === family) : result.value;
        const addresses = wanted.length > 0 ? wanted : result.value;
        if (all) {
          // node's typings model only the single-address callback; with `all` it takes a list.
          (callback as unknown as (e: null, a: LookupAddress[]) => void)(
            null,
            addresses.map((a) => ({ address: a.address, family: a.family })),
          );
        } else {
          const first = addresses[0] as ResolvedAddress;
          callback(null, first.address, first.family);
        }
      },
      (cause: unknown) => callback(cause as NodeJS.ErrnoException, '', 0),
    );
  };
}
