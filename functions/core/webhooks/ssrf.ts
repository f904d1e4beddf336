/**
 * The SSRF policy: which addresses a webhook may reach. Classification of an address lives in
 * addresses.ts (ranges matched with ipaddr.js); this module adds the allow-list of local
 * development, the check of one address and the check of every address a name resolves to. DNS
 * itself is a port (`Resolver`): the adapter in functions/adapters/webhooks/dns.ts resolves with
 * getaddrinfo and builds the connect-time guarded lookup the sender uses.
 */
import ipaddr from 'ipaddr.js';
import { err, ok, type Result } from '../result';
import {
  type AddressClassification,
  classifyAddress,
  describeClass,
  ipFamily,
  parseIp,
  parseLooseIpv4,
} from './addresses';

export {
  type AddressClass,
  type AddressClassification,
  classifyAddress,
  describeClass,
  ipFamily,
  parseLooseIpv4,
} from './addresses';

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
    // Stryker disable next-line StringLiteral: without a '/' the address is the whole entry, and replacing it gives `bare`
    if (ipFamily(bare) !== 0) cidrs.push(entry.includes('/') ? entry.replace(address, bare) : bare);
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
  const ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  for (const [i, raw] of (input.cidrs ?? []).entries()) {
    const field = `allowList.cidrs[${i}]`;
    const [addr = '', prefixText] = raw.trim().split('/');
    const family = ipFamily(addr);
    const prefix = prefixText === undefined ? (family === 6 ? 128 : 32) : Number(prefixText);
    const max = family === 6 ? 128 : 32;
    if (family === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > max || prefixText === '') {
      return err({ kind: 'Malformed', field, value: raw, message: `${field}: "${raw}" is not a valid CIDR` });
    }
    ranges.push([ipaddr.parse(addr), prefix]);
  }
  const exact = new Set<string>();
  // Stryker disable next-line ArrayDeclaration: no hostname ends with the placeholder, which has upper case and spaces
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
      // Stryker disable next-line ArrayDeclaration: a placeholder element has no `port` to match
      (typeof reserved === 'function' ? reserved() : (reserved ?? [])).find((r) => r.port === port),
    allowsAddress: (address) => {
      const parsed = parseIp(address);
      if (!parsed) return false;
      // Like node's BlockList: an IPv4 address and its IPv4-mapped IPv6 form are the same host.
      const forms =
        parsed.kind() === 'ipv4'
          ? [parsed, (parsed as ipaddr.IPv4).toIPv4MappedAddress()]
          : (parsed as ipaddr.IPv6).isIPv4MappedAddress()
            ? [parsed, (parsed as ipaddr.IPv6).toIPv4Address()]
            : [parsed];
      return ranges.some(([base, prefix]) =>
        forms.some((form) => form.kind() === base.kind() && form.match(base, prefix)),
      );
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
    // Stryker disable next-line OptionalChaining: `allowed` is true only when the allow-list is given
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
