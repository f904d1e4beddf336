import { describe, expect, it } from 'vitest';
import { systemResolver } from '../../functions/adapters/webhooks/dns';
import {
  type AllowList,
  classifyAddress,
  compileAllowList,
  parseLooseIpv4,
  type Resolver,
} from '../../functions/core/webhooks/ssrf';
import { checkUrl, type UrlPolicyOptions, validateUrl } from '../../functions/core/webhooks/url-policy';

function problem(url: unknown, options?: UrlPolicyOptions) {
  const r = validateUrl(url, options);
  return r.ok ? 'ok' : r.error.problem;
}

function allow(input: Parameters<typeof compileAllowList>[0]): AllowList {
  const r = compileAllowList(input);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

/** DNS for tests: fixed answers, never the network. */
function fakeDns(table: Record<string, string[]>): Resolver {
  return async (hostname) => {
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error(`queryA ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }) as const);
  };
}

describe('address classification', () => {
  it.each([
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.254', 'shared'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'documentation'],
    ['2001:db8::1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['::7f00:1', 'reserved'],
    ['::127.0.0.1', 'reserved'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
    ['fec0::1', 'reserved'],
    ['8.8.8.8', 'public'],
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['2606:4700:4700::1111', 'public'],
  ])('%s is %s', (address, cls) => {
    expect(classifyAddress(address)?.class).toBe(cls);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback', 'ipv4-mapped'],
    ['::ffff:7f00:1', 'loopback', 'ipv4-mapped'],
    ['::ffff:a9fe:a9fe', 'metadata', 'ipv4-mapped'],
    ['64:ff9b::10.0.0.1', 'private', 'nat64'],
    ['64:ff9b::a9fe:a9fe', 'metadata', 'nat64'],
    ['2002:c0a8:0101::1', 'private', '6to4'],
    ['2002:7f00:1::', 'loopback', '6to4'],
    ['2002:0808:0808::', 'public', '6to4'],
  ])('%s carries an embedded IPv4 address that is %s (%s)', (address, cls, via) => {
    expect(classifyAddress(address)).toMatchObject({ class: cls, via });
  });

  it('reads inet_aton forms (decimal, octal, hex, short) as the address they denote', () => {
    expect(parseLooseIpv4('2130706433')).toBe('127.0.0.1');
    expect(parseLooseIpv4('017700000001')).toBe('127.0.0.1');
    expect(parseLooseIpv4('0x7f.1')).toBe('127.0.0.1');
    expect(parseLooseIpv4('0x7f000001')).toBe('127.0.0.1');
    expect(parseLooseIpv4('10.1')).toBe('10.0.0.1');
    expect(parseLooseIpv4('0251.0376.0251.0376')).toBe('169.254.169.254');
    expect(parseLooseIpv4('1.2.3.256')).toBeUndefined();
    expect(parseLooseIpv4('4294967296')).toBeUndefined();
    expect(parseLooseIpv4('example.com')).toBeUndefined();
    expect(classifyAddress('0x7f.1')?.class).toBe('loopback');
  });

  it('treats hostnames as hostnames', () => {
    expect(classifyAddress('example.com')).toBeUndefined();
  });
});

describe('validateUrl', () => {
  it('accepts a public https URL', () => {
    const r = validateUrl('https://hooks.example.com/carhook?team=a');
    expect(r.ok && r.value.href).toBe('https://hooks.example.com/carhook?team=a');
  });

  it('names each problem in a message starting with the field', () => {
    const cases: [string, string, RegExp][] = [
      ['not a url', 'not-a-url', /not an absolute URL/],
      ['ftp://example.com/x', 'scheme', /scheme "ftp"/],
      ['http://example.com/x', 'insecure', /must use https/],
      [`https://example.com/${'a'.repeat(2030)}`, 'too-long', /limit is 2048/],
      ['https://user:secret@example.com/', 'credentials', /credentials/],
      ['https://token@example.com/', 'credentials', /credentials/],
      ['https://example.com/x#frag', 'fragment', /fragment/],
      ['https://example.com:22/', 'port', /port 22/],
      ['https://exa_mple.com/', 'host', /not a valid hostname/],
      ['https://intranet/', 'host', /fully-qualified/],
      ['https://10.0.0.5/', 'address', /10\.0\.0\.5 is private/],
      ['https://[::1]/', 'address', /::1 is loopback/],
    ];
    for (const [url, expected, message] of cases) {
      const r = validateUrl(url);
      expect(r.ok ? 'ok' : r.error.problem, url).toBe(expected);
      if (!r.ok) {
        expect(r.error.field).toBe('url');
        expect(r.error.message).toMatch(/^url: /);
        expect(r.error.message).toMatch(message);
      }
    }
    expect(problem(42)).toBe('not-a-url');
    expect(problem(`https://e.com/${'a'.repeat(2048)}`)).toBe('too-long');
  });

  it('refuses SSRF hosts in every spelling: decimal, octal, hex, IPv4-mapped IPv6, metadata', () => {
    for (const url of [
      'http://2130706433/',
      'https://2130706433/',
      'https://0x7f.1/',
      'https://0x7f000001/',
      'https://017700000001/',
      'https://127.1/',
      'https://0/',
      'https://[::ffff:127.0.0.1]/',
      'https://[::ffff:7f00:1]/',
      'https://[::127.0.0.1]/',
      'https://169.254.169.254/latest/meta-data/',
      'https://0251.0376.0251.0376/',
      'https://[fd00:ec2::254]/',
      'https://100.100.100.200/',
      'https://[64:ff9b::a00:1]/',
      'https://[2002:a00:1::]/',
      'https://[fe80::1]/',
      'https://192.168.0.1:8443/',
      'https://172.20.0.1/',
      'https://100.64.1.1/',
      'https://224.0.0.1/',
      'https://255.255.255.255/',
    ]) {
      expect(problem(url), url).toBe('address');
    }
  });

  it('accepts http only for loopback hosts, only in local mode, and loopback only when allow-listed', () => {
    const local = { allowInsecureLoopback: true, allowList: allow({ cidrs: ['127.0.0.1/32', '::1/128'] }) };
    expect(problem('http://127.0.0.1:8080/hooks', local)).toBe('ok');
    expect(problem('http://[::1]:8080/hooks', local)).toBe('ok');
    expect(problem('http://localhost:8080/hooks', local)).toBe('ok');
    expect(problem('http://example.com/hooks', local)).toBe('insecure');
    expect(problem('http://127.0.0.1:8080/hooks', { allowList: local.allowList })).toBe('insecure');
    expect(problem('http://127.0.0.1:8080/hooks', { allowInsecureLoopback: true })).toBe('address');
  });

  it('lets an allow-list open private ranges and named hosts for local development', () => {
    const list = allow({ cidrs: ['10.0.0.0/8'], hostnames: ['*.corp.test', 'devbox'] });
    expect(problem('https://10.2.3.4/', { allowList: list })).toBe('ok');
    expect(problem('https://192.168.1.1/', { allowList: list })).toBe('address');
    expect(problem('https://devbox/', { allowList: list })).toBe('ok');
  });

  it('refuses an invalid allow-list entry, naming it', () => {
    const r = compileAllowList({ cidrs: ['127.0.0.1/33'] });
    expect(r.ok ? '' : r.error.message).toBe('allowList.cidrs[0]: "127.0.0.1/33" is not a valid CIDR');
    const h = compileAllowList({ hostnames: ['bad host'] });
    expect(h.ok ? '' : h.error.field).toBe('allowList.hostnames[0]');
  });
});

describe('checkUrl (subscribe time, after DNS)', () => {
  const dns = fakeDns({
    'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    'loopback.attacker.test': ['127.0.0.1'],
    'private.attacker.test': ['10.0.0.7'],
    'metadata.attacker.test': ['169.254.169.254'],
    'v6loopback.attacker.test': ['::1'],
    'mapped.attacker.test': ['::ffff:127.0.0.1'],
    'mixed.attacker.test': ['93.184.216.34', '10.0.0.7'],
    'empty.example.com': [],
    'corp.test': ['10.9.9.9'],
  });

  it('accepts a name whose every address is public', async () => {
    const r = await checkUrl('https://hooks.example.com/x', { resolve: dns });
    expect(r.ok && r.value.addresses.map((a) => a.address)).toEqual([
      '93.184.216.34',
      '2606:2800:220:1:248:1893:25c8:1946',
    ]);
  });

  it.each([
    ['loopback.attacker.test', /resolves to 127\.0\.0\.1, which is loopback/],
    ['private.attacker.test', /resolves to 10\.0\.0\.7, which is private/],
    ['metadata.attacker.test', /resolves to 169\.254\.169\.254, which is a cloud metadata/],
    ['v6loopback.attacker.test', /resolves to ::1, which is loopback/],
    ['mapped.attacker.test', /ipv4-mapped form of 127\.0\.0\.1/],
    ['mixed.attacker.test', /resolves to 10\.0\.0\.7/],
  ])('refuses %s', async (host, message) => {
    const r = await checkUrl(`https://${host}/hook`, { resolve: dns });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.problem).toBe('address');
      expect(r.error.message).toMatch(message);
    }
  });

  it('reports names that do not resolve', async () => {
    for (const host of ['nowhere.example.com', 'empty.example.com']) {
      const r = await checkUrl(`https://${host}/`, { resolve: dns });
      expect(r.ok ? 'ok' : r.error.problem).toBe('unresolvable');
    }
  });

  it('lets an allow-listed hostname through whatever it resolves to', async () => {
    const r = await checkUrl('https://corp.test/', {
      resolve: dns,
      allowList: allow({ hostnames: ['corp.test'] }),
    });
    expect(r.ok).toBe(true);
  });

  it('checks IP literal hosts without asking DNS', async () => {
    const never: Resolver = async () => {
      throw new Error('DNS must not be asked about an IP literal');
    };
    expect((await checkUrl('https://8.8.8.8/', { resolve: never })).ok).toBe(true);
    const r = await checkUrl('https://2130706433/', { resolve: never });
    expect(r.ok ? 'ok' : r.error.problem).toBe('address');
  });

  it('with the system resolver, localhost (from the hosts file) is loopback', async () => {
    const r = await checkUrl('http://localhost:8080/hooks', {
      allowInsecureLoopback: true,
      resolve: systemResolver,
    });
    expect(r.ok ? 'ok' : r.error.message).toMatch(/"localhost" resolves to .*, which is loopback/);
  });

  it('without a resolver a name is unresolvable (core does no DNS of its own); an IP literal is still checked', async () => {
    const named = await checkUrl('https://hooks.example.com/x');
    expect(named.ok ? 'ok' : named.error).toMatchObject({
      problem: 'unresolvable',
      message: 'url: host "hooks.example.com" could not be resolved (no DNS resolver configured)',
    });
    const literal = await checkUrl('https://93.184.216.34/x');
    expect(literal.ok).toBe(true);
  });
});
