import { describe, expect, it } from 'vitest';
import { type AllowList, compileAllowList, type Resolver } from '../../functions/core/webhooks/ssrf';
import {
  checkUrl,
  effectivePort,
  isIpLiteralHost,
  isLoopbackName,
  MAX_URL_LENGTH,
  type UrlPolicyOptions,
  validateUrl,
} from '../../functions/core/webhooks/url-policy';

/**
 * The subscription URL policy stated exactly: the error each refusal returns (problem, message,
 * value shown), every boundary on both sides (URL length, label and name length, ports) and what
 * an allow-list or local mode changes.
 */

function allow(input: Parameters<typeof compileAllowList>[0]): AllowList {
  const r = compileAllowList(input);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

function outcome(url: unknown, options?: UrlPolicyOptions): string {
  const r = validateUrl(url, options);
  return r.ok ? `ok ${r.value.href}` : `${r.error.problem}: ${r.error.message}`;
}

const never: Resolver = async () => {
  throw new Error('DNS must not be asked');
};

describe('url length', () => {
  it('accepts exactly 2048 characters and refuses 2049, with the length in the message', () => {
    expect(MAX_URL_LENGTH).toBe(2048);
    const base = 'https://hooks.example.com/';
    const at = `${base}${'a'.repeat(2048 - base.length)}`;
    expect(validateUrl(at).ok).toBe(true);
    expect(outcome(`${at}b`)).toBe('too-long: url: is 2049 characters; the limit is 2048');
  });

  it('refuses a URL that grows past the limit once normalized (percent-encoding)', () => {
    const base = 'https://hooks.example.com/';
    const raw = `${base}${'é'.repeat(1000)}`; // 1026 characters, each é becomes %C3%A9
    expect(outcome(raw)).toBe(
      `too-long: url: is ${base.length + 6000} characters once normalized; the limit is 2048`,
    );
  });

  it('shows the first 200 characters of a long refused value, followed by an ellipsis', () => {
    const long = `https://hooks.example.com/${'x'.repeat(2100)}`;
    const r = validateUrl(long);
    expect(r.ok ? '' : r.error.value).toBe(`${long.slice(0, 200)}…`);
    const exactly200 = `ftp://e.com/${'y'.repeat(200 - 'ftp://e.com/'.length)}`;
    const s = validateUrl(exactly200);
    expect(s.ok ? '' : s.error.value).toBe(exactly200);
    const r201 = validateUrl(`${exactly200}z`);
    expect(r201.ok ? '' : r201.error.value).toBe(`${exactly200}…`);
  });
});

describe('validateUrl errors, exactly', () => {
  it('a non-string', () => {
    expect(validateUrl(42)).toEqual({
      ok: false,
      error: {
        kind: 'Malformed',
        field: 'url',
        problem: 'not-a-url',
        value: '42',
        message: 'url: must be a string',
      },
    });
    expect(outcome(undefined)).toBe('not-a-url: url: must be a string');
  });

  it('a relative or unparseable URL', () => {
    expect(outcome('/hooks')).toBe('not-a-url: url: is not an absolute URL (expected https://host/path)');
  });

  it('a scheme other than https or http', () => {
    expect(outcome('ftp://hooks.example.com/')).toBe('scheme: url: scheme "ftp" is not allowed; use https');
    expect(outcome('wss://hooks.example.com/')).toBe('scheme: url: scheme "wss" is not allowed; use https');
  });

  it('credentials: a user, a password alone, or both', () => {
    const message =
      'credentials: url: must not contain credentials (user:password@); authenticate with the signature';
    expect(outcome('https://user@hooks.example.com/')).toBe(message);
    expect(outcome('https://:pw@hooks.example.com/')).toBe(message);
    expect(outcome('https://user:pw@hooks.example.com/')).toBe(message);
  });

  it('a fragment, even an empty one', () => {
    const message = 'fragment: url: must not contain a fragment (#…): it is never sent to the server';
    expect(outcome('https://hooks.example.com/x#top')).toBe(message);
    expect(outcome('https://hooks.example.com/x#')).toBe(message);
  });

  it('a literal address that is not public carries its classification', () => {
    const r = validateUrl('https://10.0.0.5/hooks');
    expect(r).toEqual({
      ok: false,
      error: {
        kind: 'Malformed',
        field: 'url',
        problem: 'address',
        value: 'https://10.0.0.5/hooks',
        message: 'url: host 10.0.0.5 is private (RFC 1918); webhooks may not reach it',
        address: { address: '10.0.0.5', family: 4, class: 'private' },
      },
    });
  });

  it('carries no address field on a refusal that is not about an address', () => {
    const r = validateUrl('https://hooks.example.com:22/');
    expect(r.ok ? [] : Object.keys(r.error)).toEqual(['kind', 'field', 'problem', 'value', 'message']);
  });

  it('reports the address before the scheme for an http URL to a private address', () => {
    expect(outcome('http://[fd00::1]/')).toBe(
      'address: url: host fd00::1 is unique-local (fc00::/7); webhooks may not reach it',
    );
  });
});

describe('hostnames', () => {
  it('accepts labels of 1 to 63 characters, not 64', () => {
    expect(validateUrl(`https://${'a'.repeat(63)}.example.com/`).ok).toBe(true);
    expect(validateUrl('https://a.example.com/').ok).toBe(true);
    const h = `${'a'.repeat(64)}.example.com`;
    expect(outcome(`https://${h}/`)).toBe(`host: url: host "${h}" is not a valid hostname`);
  });

  it('refuses a label that starts or ends with a hyphen, accepts one inside', () => {
    expect(validateUrl('https://my-hooks.example.com/').ok).toBe(true);
    expect(outcome('https://-hooks.example.com/')).toBe(
      'host: url: host "-hooks.example.com" is not a valid hostname',
    );
    expect(outcome('https://hooks-.example.com/')).toBe(
      'host: url: host "hooks-.example.com" is not a valid hostname',
    );
  });

  it('accepts a name of 253 characters (a trailing dot not counted) and refuses 254', () => {
    const labels = (n: number) => {
      // 63-character labels joined by dots, trimmed to n characters ending in a letter.
      const s = Array.from({ length: 5 }, () => 'b'.repeat(63))
        .join('.')
        .slice(0, n - 4);
      return `${s.replace(/\.$/, 'c')}.com`;
    };
    const n253 = labels(253);
    const n254 = labels(254);
    expect([n253.length, n254.length]).toEqual([253, 254]);
    expect(validateUrl(`https://${n253}/`).ok).toBe(true);
    expect(validateUrl(`https://${n253}./`).ok).toBe(true);
    expect(outcome(`https://${n254}/`)).toBe(`host: url: host "${n254}" is not a valid hostname`);
  });

  it('refuses a single-label name unless it is localhost or allow-listed', () => {
    expect(outcome('https://intranet/')).toBe(
      'host: url: host "intranet" is not a fully-qualified domain name',
    );
    expect(outcome('https://intranet/', { allowList: allow({ hostnames: ['intranet'] }) })).toBe(
      'ok https://intranet/',
    );
    expect(outcome('https://intranet/', { allowList: allow({ hostnames: ['other'] }) })).toBe(
      'host: url: host "intranet" is not a fully-qualified domain name',
    );
    expect(outcome('https://localhost/')).toBe('ok https://localhost/');
  });

  it('knows localhost and its subdomains, in any case and with a trailing dot, as loopback names', () => {
    expect(isLoopbackName('localhost')).toBe(true);
    expect(isLoopbackName('LocalHost.')).toBe(true);
    expect(isLoopbackName('hooks.localhost')).toBe(true);
    expect(isLoopbackName('HOOKS.LOCALHOST.')).toBe(true);
    expect(isLoopbackName('mylocalhost')).toBe(false);
    expect(isLoopbackName('localhost.example.com')).toBe(false);
  });
});

describe('http and local mode', () => {
  const loopbackAllowed = allow({ cidrs: ['127.0.0.0/8', '::1/128', '10.0.0.0/8'] });
  const local = { allowInsecureLoopback: true, allowList: loopbackAllowed };

  it('says https is required, with the local-mode hint only in local mode', () => {
    expect(outcome('http://hooks.example.com/')).toBe('insecure: url: must use https');
    expect(outcome('http://hooks.example.com/', { allowInsecureLoopback: true })).toBe(
      'insecure: url: must use https (http is accepted only for loopback hosts in local mode)',
    );
  });

  it('in local mode, accepts http to a loopback literal or name, not to an allowed private address', () => {
    expect(outcome('http://127.0.0.2:9000/h', local)).toBe('ok http://127.0.0.2:9000/h');
    expect(outcome('http://[::1]:9000/h', local)).toBe('ok http://[::1]:9000/h');
    expect(outcome('http://hooks.localhost:9000/h', local)).toBe('ok http://hooks.localhost:9000/h');
    expect(outcome('http://10.1.1.1:9000/h', local)).toBe(
      'insecure: url: must use https (http is accepted only for loopback hosts in local mode)',
    );
    expect(outcome('https://10.1.1.1:9000/h', local)).toBe('ok https://10.1.1.1:9000/h');
  });
});

describe('ports', () => {
  it('uses the scheme default port when none is given, the given one otherwise', () => {
    expect(effectivePort(new URL('https://e.com/'))).toBe(443);
    expect(effectivePort(new URL('http://e.com/'))).toBe(80);
    expect(effectivePort(new URL('https://e.com:8443/'))).toBe(8443);
    expect(effectivePort(new URL('http://e.com:443/'))).toBe(443);
  });

  it('accepts 80, 443 and 1024-65535; refuses 1-1023 otherwise, naming the port', () => {
    expect(validateUrl('https://hooks.example.com:80/').ok).toBe(true);
    expect(validateUrl('https://hooks.example.com:443/').ok).toBe(true);
    expect(validateUrl('https://hooks.example.com:1024/').ok).toBe(true);
    expect(validateUrl('https://hooks.example.com:65535/').ok).toBe(true);
    for (const port of [1, 79, 81, 442, 444, 1023]) {
      expect(outcome(`https://hooks.example.com:${port}/`)).toBe(
        `port: url: port ${port} is not allowed (use 443, 80 or a port from 1024 to 65535)`,
      );
    }
  });

  it('accepts a service port only when extraPorts names it', () => {
    expect(validateUrl('https://hooks.example.com:8/', { extraPorts: [8] }).ok).toBe(true);
    expect(validateUrl('https://hooks.example.com:9/', { extraPorts: [8] }).ok).toBe(false);
  });

  it('checks an allowed literal address against the reserved port the URL really uses (the default one too)', () => {
    const allowList = allow({
      cidrs: ['127.0.0.0/8'],
      reservedPorts: [
        { port: 443, what: 'HTTPS thing' },
        { port: 80, what: 'HTTP thing' },
      ],
    });
    expect(outcome('https://127.0.0.1/', { allowList })).toBe(
      "address: url: port 443 on 127.0.0.1 is Carhook's own HTTPS thing; webhooks may not reach it",
    );
    expect(outcome('http://127.0.0.1/', { allowList, allowInsecureLoopback: true })).toBe(
      "address: url: port 80 on 127.0.0.1 is Carhook's own HTTP thing; webhooks may not reach it",
    );
    expect(outcome('https://127.0.0.1:9443/', { allowList })).toBe('ok https://127.0.0.1:9443/');
  });
});

describe('checkUrl', () => {
  it('returns the URL and every address the name resolved to', async () => {
    const resolve: Resolver = async (h) =>
      h === 'hooks.example.com'
        ? [
            { address: '93.184.216.34', family: 4 },
            { address: '2606:4700::1', family: 6 },
          ]
        : [];
    const r = await checkUrl('https://hooks.example.com/x', { resolve });
    expect(r.ok && { href: r.value.url.href, addresses: r.value.addresses }).toEqual({
      href: 'https://hooks.example.com/x',
      addresses: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:4700::1', family: 6 },
      ],
    });
  });

  it('returns the validation error without asking DNS', async () => {
    expect(await checkUrl('ftp://hooks.example.com/', { resolve: never })).toEqual(
      validateUrl('ftp://hooks.example.com/'),
    );
  });

  it('refuses a name resolving to a private address with the classification, and the normalized URL', async () => {
    const resolve: Resolver = async () => [{ address: '10.0.0.7', family: 4 }];
    expect(await checkUrl('https://HOOKS.example.com/a b', { resolve })).toEqual({
      ok: false,
      error: {
        kind: 'Malformed',
        field: 'url',
        problem: 'address',
        value: 'https://hooks.example.com/a%20b',
        message:
          'url: host "hooks.example.com" resolves to 10.0.0.7, which is private (RFC 1918); webhooks may not reach it',
        address: { address: '10.0.0.7', family: 4, class: 'private' },
      },
    });
  });

  it('reports a name that does not resolve, with the resolver error code', async () => {
    const resolve: Resolver = async () => {
      throw Object.assign(new Error('queryA ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const r = await checkUrl('https://gone.example.com/', { resolve });
    expect(r.ok ? '' : `${r.error.problem}: ${r.error.message}`).toBe(
      'unresolvable: url: host "gone.example.com" could not be resolved (ENOTFOUND)',
    );
    expect(r.ok || 'address' in r.error).toBe(false);
  });

  it('checks resolved addresses against a reserved port of the URL', async () => {
    const allowList = allow({ hostnames: ['*.localhost'], reservedPorts: [{ port: 9000, what: 'API' }] });
    const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const r = await checkUrl('https://hooks.localhost:9000/', { resolve, allowList });
    expect(r.ok ? '' : r.error.message).toBe(
      `url: port 9000 on "hooks.localhost" (127.0.0.1) is Carhook's own API; webhooks may not reach it`,
    );
    expect((await checkUrl('https://hooks.localhost:9001/', { resolve, allowList })).ok).toBe(true);
  });

  it('asks DNS for the bare IPv6 literal, never (literals are checked directly)', async () => {
    const r = await checkUrl('https://[2606:4700::1]/', { resolve: never });
    expect(r.ok && r.value.addresses).toEqual([{ address: '2606:4700::1', family: 6 }]);
  });
});

describe('isIpLiteralHost', () => {
  it('is true for IPv4 and bracketed IPv6 hosts, false for names', () => {
    expect(isIpLiteralHost(new URL('https://8.8.8.8/'))).toBe(true);
    expect(isIpLiteralHost(new URL('https://[2606:4700::1]/'))).toBe(true);
    expect(isIpLiteralHost(new URL('https://hooks.example.com/'))).toBe(false);
  });
});
