import ipaddr from 'ipaddr.js';

/**
 * Address classification for subscription URLs. A subscriber's URL is untrusted: the host
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
  // Stryker disable next-line StringLiteral: a public address is never refused, so its label is never shown
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

/** 4 for a dotted-quad IPv4 address, 6 for an IPv6 address (zone id allowed), 0 otherwise: node's `isIP`. */
export function ipFamily(text: string): 0 | 4 | 6 {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return 4;
  return ipaddr.IPv6.isValid(text) ? 6 : 0;
}

/**
 * An IPv6 address, parsed. A trailing dotted quad is written as two hex groups first: ipaddr.js
 * reads `::a.b.c.d` as the IPv4-mapped `::ffff:a.b.c.d`, but RFC 4291 makes it the (deprecated)
 * IPv4-compatible address `::a.b.c.d`, a different one.
 */
function parseV6(text: string): ipaddr.IPv6 {
  const zone = text.indexOf('%');
  const bare = zone >= 0 ? text.slice(0, zone) : text;
  const lastColon = bare.lastIndexOf(':');
  const tail = bare.slice(lastColon + 1);
  if (!tail.includes('.')) return ipaddr.IPv6.parse(text);
  const [a = 0, b = 0, c = 0, d = 0] = ipaddr.IPv4.parse(tail).toByteArray();
  const hex = `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  return ipaddr.IPv6.parse(`${bare.slice(0, lastColon + 1)}${hex}${zone >= 0 ? text.slice(zone) : ''}`);
}

/** A dotted-quad IPv4 address or an IPv6 address, parsed; undefined for anything else. */
export function parseIp(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const family = ipFamily(text);
  return family === 4 ? ipaddr.IPv4.parse(text) : family === 6 ? parseV6(text) : undefined;
}

/**
 * inet_aton(3) forms: `2130706433`, `0x7f.1`, `017700000001`, `127.1`. WHATWG URL parsing already
 * normalizes these to dotted quads, but hostnames also reach us from allow-lists and resolvers,
 * and some HTTP stacks pass such strings to inet_aton: recognizing them here means they are always
 * judged as the address they denote, never as a name.
 */
export function parseLooseIpv4(host: string): string | undefined {
  // `split` gives at least one part.
  const parts = host.split('.');
  if (parts.length > 4) return undefined;
  const values: number[] = [];
  for (const part of parts) {
    const value = partValue(part);
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
  return ipaddr.fromByteArray([(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]).toString();
}

/** One part of an inet_aton form: hex (`0x1f`), octal (`017`) or decimal; NaN for anything else. */
function partValue(part: string): number {
  // Stryker disable next-line MethodExpression: Number.parseInt(s, 16) skips a leading 0x itself
  if (/^0x[0-9a-f]*$/i.test(part)) return part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16);
  // Stryker disable next-line MethodExpression: a leading 0 adds nothing to an octal number
  if (/^0[0-7]+$/.test(part)) return Number.parseInt(part.slice(1), 8);
  if (/^(0|[1-9][0-9]*)$/.test(part)) return Number(part);
  return Number.NaN;
}

// --- Range tables ----------------------------------------------------------------------------

type V4Range = readonly [base: string, prefix: number, cls: AddressClass];
type Embed = 'ipv4-mapped' | 'nat64' | '6to4';

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

const V4_TABLE = V4_RANGES.map(([base, prefix, cls]) => ({
  range: [ipaddr.IPv4.parse(base), prefix] as [ipaddr.IPv4, number],
  cls,
}));

function classifyV4(address: ipaddr.IPv4): AddressClass {
  for (const r of V4_TABLE) if (address.match(r.range)) return r.cls;
  return 'public';
}

type V6Rule = { readonly range: [ipaddr.IPv6, number] } & (
  | { readonly cls: AddressClass }
  | { readonly embed: Embed }
);

function v6(base: string, prefix: number, cls: AddressClass): V6Rule {
  return { range: [ipaddr.IPv6.parse(base), prefix], cls };
}
function v6Embed(base: string, prefix: number, embed: Embed): V6Rule {
  return { range: [ipaddr.IPv6.parse(base), prefix], embed };
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

const GLOBAL_UNICAST: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('2000::'), 3];

/** The IPv4 address an IPv6 one carries: its last 32 bits, or bits 16-47 for 6to4. */
function embeddedV4(address: ipaddr.IPv6, embed: Embed): ipaddr.IPv4 {
  const bytes = address.toByteArray();
  const at = embed === '6to4' ? 2 : 12;
  return new ipaddr.IPv4(bytes.slice(at, at + 4));
}

function classifyV6(text: string, address: ipaddr.IPv6): AddressClassification {
  for (const rule of V6_RULES) {
    if (!address.match(rule.range)) continue;
    if ('cls' in rule) return { address: text, family: 6, class: rule.cls };
    const v4 = embeddedV4(address, rule.embed);
    return { address: text, family: 6, class: classifyV4(v4), via: rule.embed, embedded: v4.toString() };
  }
  return { address: text, family: 6, class: address.match(GLOBAL_UNICAST) ? 'public' : 'reserved' };
}

/**
 * Classifies an IP address (IPv4 dotted or loose form, IPv6 with or without brackets). Returns
 * undefined when the string is not an IP address at all (then it is a hostname).
 */
export function classifyAddress(input: string): AddressClassification | undefined {
  const address = input.startsWith('[') && input.endsWith(']') ? input.slice(1, -1) : input;
  // A loose form is returned as the dotted quad it denotes.
  const v4 = ipFamily(address) === 4 ? address : parseLooseIpv4(address);
  if (v4 !== undefined) {
    return { address, family: 4, class: classifyV4(ipaddr.IPv4.parse(v4)) };
  }
  if (ipFamily(address) === 6) return classifyV6(address, parseV6(address));
  return undefined;
}
