import { err, ok, type Result } from '../result';
import { ipFamily } from './addresses';
import {
  type AddressClassification,
  type AllowList,
  checkAddress,
  classifyAddress,
  type ResolvedAddress,
  type Resolver,
  resolveChecked,
} from './ssrf';

export const MAX_URL_LENGTH = 2048;

export interface UrlPolicyOptions {
  /** Local mode: `http://` is accepted for loopback hosts (127.0.0.0/8, ::1, localhost). */
  readonly allowInsecureLoopback?: boolean;
  /** Overrides the address policy for what it names (local development). */
  readonly allowList?: AllowList;
  /**
   * Ports accepted besides 80/443 and 1024–65535. Ports below 1024 are service ports (SSH, SMTP,
   * Redis-like admin ports…) that a webhook has no business reaching.
   */
  readonly extraPorts?: readonly number[];
}

export type UrlProblem =
  | 'not-a-url'
  | 'too-long'
  | 'scheme'
  | 'insecure'
  | 'credentials'
  | 'fragment'
  | 'host'
  | 'port'
  | 'address'
  | 'unresolvable';

export interface UrlPolicyError {
  readonly kind: 'Malformed';
  readonly field: 'url';
  readonly problem: UrlProblem;
  readonly value: string;
  /** Names the problem and, where it helps, what to do about it. */
  readonly message: string;
  readonly address?: AddressClassification;
}

function refuse(
  value: string,
  problem: UrlProblem,
  why: string,
  address?: AddressClassification,
): { ok: false; error: UrlPolicyError } {
  const shown = value.length > 200 ? `${value.slice(0, 200)}…` : value;
  return err({
    kind: 'Malformed',
    field: 'url',
    problem,
    value: shown,
    message: `url: ${why}`,
    ...(address ? { address } : {}),
  });
}

/** `localhost` and `*.localhost` always mean this machine (RFC 6761 6.3). */
export function isLoopbackName(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
}

function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

export function effectivePort(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * Synchronous checks of a subscription URL: everything that can be decided without DNS. IP
 * literal hosts are classified here; names are checked by `checkUrl` (subscribe time) and by the
 * sender's guarded lookup (every delivery).
 */
export function validateUrl(raw: unknown, options: UrlPolicyOptions = {}): Result<URL, UrlPolicyError> {
  if (typeof raw !== 'string') return refuse(String(raw), 'not-a-url', 'must be a string');
  if (raw.length > MAX_URL_LENGTH) {
    return refuse(raw, 'too-long', `is ${raw.length} characters; the limit is ${MAX_URL_LENGTH}`);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse(raw, 'not-a-url', 'is not an absolute URL (expected https://host/path)');
  }
  if (url.href.length > MAX_URL_LENGTH) {
    return refuse(
      raw,
      'too-long',
      `is ${url.href.length} characters once normalized; the limit is ${MAX_URL_LENGTH}`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    // Stryker disable next-line Regex: url.protocol is a scheme (which has no colon) followed by one colon, so anchoring the colon at the end changes nothing
    return refuse(raw, 'scheme', `scheme "${url.protocol.replace(/:$/, '')}" is not allowed; use https`);
  }
  if (url.username || url.password) {
    return refuse(
      raw,
      'credentials',
      'must not contain credentials (user:password@); authenticate with the signature',
    );
  }
  if (url.hash || raw.includes('#')) {
    return refuse(raw, 'fragment', 'must not contain a fragment (#…): it is never sent to the server');
  }
  const host = bareHost(url);
  // Stryker disable next-line all: WHATWG URL parsing gives every http(s) URL a host (https:///x has host "x", https:// throws), so this guard never fires
  if (!host) return refuse(raw, 'host', 'has no host');

  const literal = classifyAddress(host);
  if (!literal) {
    const name = host.replace(/\.$/, '');
    if (name.length > 253 || !name.split('.').every((l) => LABEL.test(l))) {
      return refuse(raw, 'host', `host "${host}" is not a valid hostname`);
    }
    const allowListed = options.allowList?.allowsHostname(name) ?? false;
    if (!name.includes('.') && !isLoopbackName(name) && !allowListed) {
      return refuse(raw, 'host', `host "${host}" is not a fully-qualified domain name`);
    }
  } else {
    // The address is the most telling problem of an SSRF attempt: report it before the scheme.
    const checked = checkAddress(host, literal.address, options.allowList, effectivePort(url));
    if (!checked.ok) return refuse(raw, 'address', checked.error.message, literal);
  }
  const loopback = literal ? literal.class === 'loopback' : isLoopbackName(host);
  if (url.protocol === 'http:' && !(options.allowInsecureLoopback && loopback)) {
    const hint = options.allowInsecureLoopback
      ? ' (http is accepted only for loopback hosts in local mode)'
      : '';
    return refuse(raw, 'insecure', `must use https${hint}`);
  }
  const port = effectivePort(url);
  // Stryker disable next-line ArrayDeclaration: the fallback list only stands for "no extra ports"; a placeholder element is a string, never the numeric port
  if (port !== 80 && port !== 443 && port < 1024 && !(options.extraPorts ?? []).includes(port)) {
    return refuse(raw, 'port', `port ${port} is not allowed (use 443, 80 or a port from 1024 to 65535)`);
  }
  return ok(url);
}

export interface CheckedUrl {
  readonly url: URL;
  /** What the host resolved to at check time (informational: delivery resolves and checks again). */
  readonly addresses: readonly ResolvedAddress[];
}

export interface CheckUrlOptions extends UrlPolicyOptions {
  /**
   * DNS (the composition root injects getaddrinfo, functions/adapters/webhooks/dns.ts). Without
   * one, only IP literals can be checked; a name is unresolvable.
   */
  readonly resolve?: Resolver;
}

const noResolver: Resolver = async () => {
  throw new Error('no DNS resolver configured');
};

/**
 * Subscribe-time check: `validateUrl`, then every A/AAAA address of the host must be allowed.
 * Delivery checks again (the sender's guarded lookup): this one gives the subscriber an early,
 * clear 400; the delivery-time one is what actually defeats rebinding.
 */
export async function checkUrl(
  raw: unknown,
  options: CheckUrlOptions = {},
): Promise<Result<CheckedUrl, UrlPolicyError>> {
  const validated = validateUrl(raw, options);
  if (!validated.ok) return validated;
  const url = validated.value;
  const host = bareHost(url);
  const resolved = await resolveChecked(
    host,
    options.resolve ?? noResolver,
    options.allowList,
    effectivePort(url),
  );
  if (!resolved.ok) {
    const e = resolved.error;
    return e.kind === 'AddressRefused'
      ? refuse(url.href, 'address', e.message, e.classification)
      : refuse(url.href, 'unresolvable', e.message);
  }
  return ok({ url, addresses: resolved.value });
}

/** True when the host is an IP literal (then no lookup happens: the sender checks it directly). */
export function isIpLiteralHost(url: URL): boolean {
  return ipFamily(bareHost(url)) !== 0;
}
