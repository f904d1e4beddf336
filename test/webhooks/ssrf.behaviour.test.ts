import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { guardedLookup, systemResolver } from '../../functions/adapters/webhooks/dns';
import {
  type AllowList,
  checkAddress,
  classifyAddress,
  compileAllowList,
  GuardedLookupError,
  parseAllowEntries,
  parseLooseIpv4,
  type Resolver,
  resolveChecked,
} from '../../functions/core/webhooks/ssrf';

/**
 * The address policy stated exactly: the first and last address of every named range and the
 * neighbours just outside it, the exact refusal message for each class, allow-list parsing on both
 * sides of every rule, and what a guarded lookup hands the socket.
 */

function allow(input: Parameters<typeof compileAllowList>[0]): AllowList {
  const r = compileAllowList(input);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

describe('IPv4 ranges, edges included', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.255.255.255', 'unspecified'],
    ['1.0.0.0', 'public'],
    ['9.255.255.255', 'public'],
    ['10.0.0.0', 'private'],
    ['10.255.255.255', 'private'],
    ['11.0.0.0', 'public'],
    ['100.63.255.255', 'public'],
    ['100.64.0.0', 'shared'],
    ['100.127.255.255', 'shared'],
    ['100.128.0.0', 'public'],
    ['100.100.100.199', 'shared'],
    ['100.100.100.200', 'metadata'],
    ['100.100.100.201', 'shared'],
    ['126.255.255.255', 'public'],
    ['127.0.0.0', 'loopback'],
    ['127.255.255.255', 'loopback'],
    ['128.0.0.0', 'public'],
    ['168.63.129.15', 'public'],
    ['168.63.129.16', 'metadata'],
    ['168.63.129.17', 'public'],
    ['169.253.255.255', 'public'],
    ['169.254.0.0', 'link-local'],
    ['169.254.169.253', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.169.255', 'link-local'],
    ['169.254.255.255', 'link-local'],
    ['169.255.0.0', 'public'],
    ['172.15.255.255', 'public'],
    ['172.16.0.0', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.0', 'public'],
    ['191.255.255.255', 'public'],
    ['192.0.0.0', 'reserved'],
    ['192.0.0.255', 'reserved'],
    ['192.0.1.0', 'public'],
    ['192.0.2.0', 'documentation'],
    ['192.0.2.255', 'documentation'],
    ['192.0.3.0', 'public'],
    ['192.88.98.255', 'public'],
    ['192.88.99.0', 'reserved'],
    ['192.88.99.255', 'reserved'],
    ['192.88.100.0', 'public'],
    ['192.167.255.255', 'public'],
    ['192.168.0.0', 'private'],
    ['192.168.255.255', 'private'],
    ['192.169.0.0', 'public'],
    ['198.17.255.255', 'public'],
    ['198.18.0.0', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['198.20.0.0', 'public'],
    ['198.51.99.255', 'public'],
    ['198.51.100.0', 'documentation'],
    ['198.51.100.255', 'documentation'],
    ['198.51.101.0', 'public'],
    ['203.0.112.255', 'public'],
    ['203.0.113.0', 'documentation'],
    ['203.0.113.255', 'documentation'],
    ['203.0.114.0', 'public'],
    ['223.255.255.255', 'public'],
    ['224.0.0.0', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['240.0.0.0', 'reserved'],
    ['255.255.255.254', 'reserved'],
    ['255.255.255.255', 'broadcast'],
  ])('%s is %s', (address, cls) => {
    expect(classifyAddress(address)).toEqual({ address, family: 4, class: cls });
  });
});

describe('IPv6 ranges, edges included', () => {
  it.each([
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::2', 'reserved'],
    ['::ffff:ffff', 'reserved'],
    ['0:0:1::1', 'reserved'],
    ['1::1', 'reserved'],
    ['64:ff9b:1::1', 'reserved'],
    ['100::1', 'reserved'],
    ['1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
    ['2000::', 'public'],
    ['2001::1', 'reserved'],
    ['2001:0:ffff::1', 'reserved'],
    ['2001:1::1', 'reserved'],
    ['2001:1ff:ffff::1', 'reserved'],
    ['2001:200::1', 'public'],
    ['2001:db7:ffff::1', 'public'],
    ['2001:db8::', 'documentation'],
    ['2001:db8:ffff::1', 'documentation'],
    ['2001:db9::1', 'public'],
    ['2003::1', 'public'],
    ['2606:4700:4700:0:0:0:0:1111', 'public'],
    ['3ffe:ffff::1', 'public'],
    ['3fff::1', 'documentation'],
    ['3fff:fff::1', 'documentation'],
    ['3fff:1000::1', 'public'],
    ['4000::1', 'reserved'],
    ['fbff::1', 'reserved'],
    ['fc00::', 'unique-local'],
    ['fd00:ec2::253', 'unique-local'],
    ['fd00:ec2::254', 'metadata'],
    ['fdff:ffff::1', 'unique-local'],
    ['fe00::1', 'reserved'],
    ['fe80::', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fec0::1', 'reserved'],
    ['feff::1', 'reserved'],
    ['ff00::', 'multicast'],
    ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'multicast'],
    ['fe80::1%eth0', 'link-local'],
    ['2606:4700::1%1', 'public'],
  ])('%s is %s', (address, cls) => {
    expect(classifyAddress(address)).toEqual({ address, family: 6, class: cls });
  });

  it('classifies an IPv4 address carried in IPv6 by that address, and says how it was carried', () => {
    expect(classifyAddress('::ffff:10.0.0.1')).toEqual({
      address: '::ffff:10.0.0.1',
      family: 6,
      class: 'private',
      via: 'ipv4-mapped',
      embedded: '10.0.0.1',
    });
    expect(classifyAddress('::ffff:0:0')).toMatchObject({ class: 'unspecified', embedded: '0.0.0.0' });
    expect(classifyAddress('::ffff:808:808')).toMatchObject({ class: 'public', embedded: '8.8.8.8' });
    expect(classifyAddress('::ffff:0:a00:1')).toEqual({
      address: '::ffff:0:a00:1',
      family: 6,
      class: 'reserved',
    });
    expect(classifyAddress('64:ff9b::808:808')).toEqual({
      address: '64:ff9b::808:808',
      family: 6,
      class: 'public',
      via: 'nat64',
      embedded: '8.8.8.8',
    });
    expect(classifyAddress('2002:c0a8:0101::1')).toEqual({
      address: '2002:c0a8:0101::1',
      family: 6,
      class: 'private',
      via: '6to4',
      embedded: '192.168.1.1',
    });
    expect(classifyAddress('2002:a9fe:a9fe:ffff:ffff:ffff:ffff:ffff')).toMatchObject({
      class: 'metadata',
      embedded: '169.254.169.254',
    });
  });

  it('reads bracketed IPv6, not a half-bracketed one', () => {
    expect(classifyAddress('[::1]')).toEqual({ address: '::1', family: 6, class: 'loopback' });
    expect(classifyAddress('[::1')).toBeUndefined();
    expect(classifyAddress('::1]')).toBeUndefined();
    expect(classifyAddress('')).toBeUndefined();
    expect(classifyAddress('hooks.example.com')).toBeUndefined();
  });

  it('keeps a loose IPv4 spelling as given and classifies the address it denotes', () => {
    expect(classifyAddress('0x7f.1')).toEqual({ address: '0x7f.1', family: 4, class: 'loopback' });
    expect(classifyAddress('167772161')).toEqual({ address: '167772161', family: 4, class: 'private' });
  });
});

describe('loose IPv4 (inet_aton) forms', () => {
  it.each([
    ['0', '0.0.0.0'],
    ['0x', '0.0.0.0'],
    ['0x.0x.0x.0x', '0.0.0.0'],
    ['0X7F.1', '127.0.0.1'],
    ['010.0.0.1', '8.0.0.1'],
    ['4294967295', '255.255.255.255'],
    ['1.16777215', '1.255.255.255'],
    ['1.2.65535', '1.2.255.255'],
    ['1.2.3.255', '1.2.3.255'],
    ['255.1', '255.0.0.1'],
    ['1.2.3.4', '1.2.3.4'],
  ])('%s is %s', (loose, dotted) => {
    expect(parseLooseIpv4(loose)).toBe(dotted);
  });

  it.each([
    '',
    '1.2.3.4.5',
    '4294967296',
    '1.16777216',
    '1.2.65536',
    '1.2.3.256',
    '256.1',
    '1.256.1',
    '08',
    '09.1',
    '0xg',
    '1.2.3.x',
    '-1',
    '99999999999999999999',
    '0x1ffffffffffffffff',
    ' 1.2.3.4',
  ])('%j is not an address', (text) => {
    expect(parseLooseIpv4(text)).toBeUndefined();
  });
});

describe('refusal messages', () => {
  it.each([
    ['10.0.0.1', 'private (RFC 1918)'],
    ['127.0.0.1', 'loopback'],
    ['169.254.0.1', 'link-local'],
    ['fc00::1', 'unique-local (fc00::/7)'],
    ['169.254.169.254', 'a cloud metadata service address'],
    ['100.64.0.1', 'carrier-grade NAT space (100.64.0.0/10)'],
    ['0.0.0.0', 'unspecified ("this network")'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.1', 'reserved for documentation'],
    ['198.18.0.1', 'reserved for benchmarking'],
    ['240.0.0.1', 'reserved / not globally routable'],
    ['::ffff:127.0.0.1', 'the ipv4-mapped form of 127.0.0.1, which is loopback'],
    ['64:ff9b::a00:1', 'the nat64 form of 10.0.0.1, which is private (RFC 1918)'],
    ['2002:a00:1::', 'the 6to4 form of 10.0.0.1, which is private (RFC 1918)'],
  ])('a literal %s is refused as %s', (address, what) => {
    const r = checkAddress(address, address);
    expect(r.ok ? '' : r.error.message).toBe(`host ${address} is ${what}; webhooks may not reach it`);
  });

  it('names the hostname and the address it resolved to', () => {
    const r = checkAddress('hooks.example.com', '10.0.0.1');
    expect(r).toEqual({
      ok: false,
      error: {
        kind: 'AddressRefused',
        hostname: 'hooks.example.com',
        address: '10.0.0.1',
        classification: { address: '10.0.0.1', family: 4, class: 'private' },
        message:
          'host "hooks.example.com" resolves to 10.0.0.1, which is private (RFC 1918); webhooks may not reach it',
      },
    });
  });

  it('treats an answer that is not an IP address as reserved', () => {
    const r = checkAddress('hooks.example.com', 'not-an-address');
    expect(r.ok ? '' : r.error).toMatchObject({
      classification: { address: 'not-an-address', family: 4, class: 'reserved' },
      message:
        'host "hooks.example.com" resolves to not-an-address, which is reserved / not globally routable; webhooks may not reach it',
    });
  });

  it('accepts a public address with its classification', () => {
    expect(checkAddress('hooks.example.com', '8.8.8.8')).toEqual({
      ok: true,
      value: { address: '8.8.8.8', family: 4, class: 'public' },
    });
  });
});

describe('allow-list', () => {
  it('allows a single address by default (/32, /128), not its neighbour', () => {
    const list = allow({ cidrs: ['10.0.0.1', '::2'] });
    expect(list.allowsAddress('10.0.0.1')).toBe(true);
    expect(list.allowsAddress('10.0.0.2')).toBe(false);
    expect(list.allowsAddress('::2')).toBe(true);
    expect(list.allowsAddress('::3')).toBe(false);
    expect(list.allowsAddress('not-an-address')).toBe(false);
  });

  it('allows a range by prefix, both families, trimming spaces', () => {
    const list = allow({ cidrs: [' 10.1.0.0/16 ', 'fd00::/8', '0.0.0.0/0'] });
    expect(list.allowsAddress('10.1.255.255')).toBe(true);
    expect(list.allowsAddress('fdff::1')).toBe(true);
    expect(list.allowsAddress('fe00::1')).toBe(false);
    expect(list.allowsAddress('192.168.1.1')).toBe(true);
    expect(allow({ cidrs: ['::/128', '10.0.0.0/32'] }).allowsAddress('10.0.0.0')).toBe(true);
  });

  it.each([
    '10.0.0.0/',
    '10.0.0.0/-1',
    '10.0.0.0/33',
    '::/129',
    '10.0.0.0/8.5',
    '10.0.0.0/x',
    'hooks.lan/8',
    '',
  ])('refuses the CIDR %j, naming its position', (bad) => {
    expect(compileAllowList({ cidrs: ['127.0.0.1/32', bad] })).toEqual({
      ok: false,
      error: {
        kind: 'Malformed',
        field: 'allowList.cidrs[1]',
        value: bad,
        message: `allowList.cidrs[1]: "${bad}" is not a valid CIDR`,
      },
    });
  });

  it('matches exact names and *.suffix wildcards in any case, with or without a trailing dot', () => {
    const list = allow({ hostnames: [' DevBox. ', '*.Corp.Test'] });
    expect(list.allowsHostname('devbox')).toBe(true);
    expect(list.allowsHostname('DEVBOX.')).toBe(true);
    expect(list.allowsHostname('a.devbox')).toBe(false);
    expect(list.allowsHostname('hooks.corp.test')).toBe(true);
    expect(list.allowsHostname('A.B.CORP.TEST.')).toBe(true);
    expect(list.allowsHostname('corp.test')).toBe(false);
    expect(list.allowsHostname('xcorp.test')).toBe(false);
    expect(allow({}).allowsHostname('devbox')).toBe(false);
  });

  it.each(['-bad.test', 'bad-.test', 'a..b', '*.', 'under_score.test', 'a b', '*.-x.test', '.lead'])(
    'refuses the hostname %j, naming its position',
    (bad) => {
      expect(compileAllowList({ hostnames: ['ok.test', bad] })).toEqual({
        ok: false,
        error: {
          kind: 'Malformed',
          field: 'allowList.hostnames[1]',
          value: bad,
          message: `allowList.hostnames[1]: "${bad}" is not a valid hostname`,
        },
      });
    },
  );

  it('accepts one-character and hyphenated labels', () => {
    expect(compileAllowList({ hostnames: ['a', 'a-b.c', '*.x-1.y'] }).ok).toBe(true);
  });

  it('names reserved ports from a list or a function read on each check, none by default', () => {
    const input = { reservedPorts: [{ port: 8080, what: 'API' }] };
    const list = allow(input);
    expect(list.input).toBe(input);
    expect(list.reservedPort(8080)).toEqual({ port: 8080, what: 'API' });
    expect(list.reservedPort(8081)).toBeUndefined();
    const ports: { port: number; what: string }[] = [];
    const dynamic = allow({ reservedPorts: () => ports });
    expect(dynamic.reservedPort(4010)).toBeUndefined();
    ports.push({ port: 4010, what: 'simulator' });
    expect(dynamic.reservedPort(4010)).toEqual({ port: 4010, what: 'simulator' });
    expect(allow({}).reservedPort(8080)).toBeUndefined();
  });

  it('sorts user entries into addresses (brackets removed) and names, skipping blanks', () => {
    expect(parseAllowEntries(['[::1]/128', ' 10.0.0.1 ', '   ', '[fd00::1]', 'hooks.lan', '[bad]'])).toEqual({
      cidrs: ['::1/128', '10.0.0.1', 'fd00::1'],
      hostnames: ['hooks.lan', '[bad]'],
    });
  });
});

describe('checkAddress with an allow-list', () => {
  const list = allow({
    cidrs: ['127.0.0.0/8'],
    hostnames: ['devbox.test'],
    reservedPorts: [{ port: 8080, what: 'HTTP API' }],
  });

  it('allows an address in a listed range, or its embedded IPv4 address, or by the hostname', () => {
    expect(checkAddress('127.0.0.5', '127.0.0.5', list).ok).toBe(true);
    expect(checkAddress('::ffff:127.0.0.1', '::ffff:127.0.0.1', list)).toEqual({
      ok: true,
      value: {
        address: '::ffff:127.0.0.1',
        family: 6,
        class: 'loopback',
        via: 'ipv4-mapped',
        embedded: '127.0.0.1',
      },
    });
    expect(checkAddress('devbox.test', '10.0.0.9', list).ok).toBe(true);
    expect(checkAddress('other.test', '10.0.0.9', list).ok).toBe(false);
  });

  it('refuses a reserved port on an allowed address, however it was allowed; other ports pass', () => {
    expect(checkAddress('127.0.0.1', '127.0.0.1', list, 8080)).toEqual({
      ok: false,
      error: {
        kind: 'AddressRefused',
        hostname: '127.0.0.1',
        address: '127.0.0.1',
        classification: { address: '127.0.0.1', family: 4, class: 'loopback' },
        message: "port 8080 on 127.0.0.1 is Carhook's own HTTP API; webhooks may not reach it",
      },
    });
    const byName = checkAddress('devbox.test', '10.0.0.9', list, 8080);
    expect(byName.ok ? '' : byName.error.message).toBe(
      `port 8080 on "devbox.test" (10.0.0.9) is Carhook's own HTTP API; webhooks may not reach it`,
    );
    expect(checkAddress('127.0.0.1', '127.0.0.1', list, 8081).ok).toBe(true);
    expect(checkAddress('127.0.0.1', '127.0.0.1', list).ok).toBe(true);
  });

  it('does not apply reserved ports to public addresses', () => {
    expect(checkAddress('8.8.8.8', '8.8.8.8', list, 8080).ok).toBe(true);
  });
});

describe('resolveChecked', () => {
  const never: Resolver = async () => {
    throw new Error('DNS must not be asked');
  };

  it('returns a literal as its dotted address without asking DNS', async () => {
    // 134744072 is 8.8.8.8 in inet_aton's single-number form.
    expect(await resolveChecked('134744072', never)).toEqual({
      ok: true,
      value: [{ address: '8.8.8.8', family: 4 }],
    });
    expect(await resolveChecked('8.8.8.8', never)).toEqual({
      ok: true,
      value: [{ address: '8.8.8.8', family: 4 }],
    });
    expect(await resolveChecked('[2606:4700::1]', never)).toEqual({
      ok: true,
      value: [{ address: '2606:4700::1', family: 6 }],
    });
    const refused = await resolveChecked('127.0.0.1', never);
    expect(refused.ok ? '' : refused.error.message).toBe(
      'host 127.0.0.1 is loopback; webhooks may not reach it',
    );
  });

  it('checks a literal against the reserved port', async () => {
    const list = allow({ cidrs: ['127.0.0.0/8'], reservedPorts: [{ port: 9, what: 'X' }] });
    expect((await resolveChecked('127.0.0.1', never, list, 9)).ok).toBe(false);
    expect((await resolveChecked('127.0.0.1', never, list, 10)).ok).toBe(true);
  });

  it('refuses a name when any one of its addresses is refused, naming that address', async () => {
    const resolve: Resolver = async () => [
      { address: '8.8.8.8', family: 4 },
      { address: '10.0.0.7', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    const r = await resolveChecked('mixed.test', resolve);
    expect(r.ok ? '' : r.error.message).toBe(
      'host "mixed.test" resolves to 10.0.0.7, which is private (RFC 1918); webhooks may not reach it',
    );
  });

  it('explains a failed resolution by its code, else its message, else the thrown value', async () => {
    const failing =
      (thrown: unknown): Resolver =>
      async () => {
        throw thrown;
      };
    const why = async (thrown: unknown) => {
      const r = await resolveChecked('gone.test', failing(thrown));
      return r.ok ? '' : `${r.error.kind}: ${r.error.message}`;
    };
    expect(await why(Object.assign(new Error('queryA ENOTFOUND gone.test'), { code: 'ENOTFOUND' }))).toBe(
      'Unresolvable: host "gone.test" could not be resolved (ENOTFOUND)',
    );
    expect(await why(new Error('timed out'))).toBe(
      'Unresolvable: host "gone.test" could not be resolved (timed out)',
    );
    expect(await why(Object.assign(new Error('odd'), { code: 42 }))).toBe(
      'Unresolvable: host "gone.test" could not be resolved (odd)',
    );
    expect(await why('boom')).toBe('Unresolvable: host "gone.test" could not be resolved (boom)');
    expect(await why(null)).toBe('Unresolvable: host "gone.test" could not be resolved (null)');
  });

  it('refuses a name without addresses', async () => {
    expect(await resolveChecked('empty.test', async () => [])).toEqual({
      ok: false,
      error: {
        kind: 'Unresolvable',
        hostname: 'empty.test',
        message: 'host "empty.test" has no A or AAAA address',
      },
    });
  });

  it('asks the system resolver (getaddrinfo) for both families', async () => {
    expect(await systemResolver('::1')).toEqual([{ address: '::1', family: 6 }]);
    expect(await systemResolver('127.0.0.1')).toEqual([{ address: '127.0.0.1', family: 4 }]);
  });
});

describe('guardedLookup', () => {
  const dual: Resolver = async () => [
    { address: '8.8.8.8', family: 4 },
    { address: '2606:4700::1', family: 6 },
    { address: '8.8.4.4', family: 4 },
  ];

  type Answer = { error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };
  function lookup(resolve: Resolver, options: object, allowList?: AllowList, port?: number): Promise<Answer> {
    return new Promise((done) => {
      guardedLookup(resolve, allowList, port)(
        'hooks.test',
        options as never,
        ((error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) =>
          done({ error, address, family })) as never,
      );
    });
  }

  it('hands the socket the first checked address, of the wanted family when there is one', async () => {
    expect(await lookup(dual, {})).toEqual({ error: null, address: '8.8.8.8', family: 4 });
    expect(await lookup(dual, { family: 6 })).toEqual({ error: null, address: '2606:4700::1', family: 6 });
    expect(await lookup(dual, { family: 4 })).toEqual({ error: null, address: '8.8.8.8', family: 4 });
    const v6only: Resolver = async () => [{ address: '2606:4700::1', family: 6 }];
    expect(await lookup(v6only, { family: 4 })).toEqual({ error: null, address: '2606:4700::1', family: 6 });
  });

  it('hands every checked address of the wanted family when asked for all', async () => {
    expect(await lookup(dual, { all: true })).toEqual({
      error: null,
      address: [
        { address: '8.8.8.8', family: 4 },
        { address: '2606:4700::1', family: 6 },
        { address: '8.8.4.4', family: 4 },
      ],
      family: undefined,
    });
    expect(await lookup(dual, { all: true, family: 4 })).toEqual({
      error: null,
      address: [
        { address: '8.8.8.8', family: 4 },
        { address: '8.8.4.4', family: 4 },
      ],
      family: undefined,
    });
  });

  it('fails the lookup with what was refused, as EADDRREFUSED or ENOTFOUND', async () => {
    const refused = await lookup(async () => [{ address: '10.0.0.1', family: 4 }], {});
    expect(refused.error).toBeInstanceOf(GuardedLookupError);
    expect(refused.error).toMatchObject({
      name: 'GuardedLookupError',
      kind: 'AddressRefused',
      code: 'EADDRREFUSED',
      message:
        'host "hooks.test" resolves to 10.0.0.1, which is private (RFC 1918); webhooks may not reach it',
      detail: { kind: 'AddressRefused', address: '10.0.0.1' },
    });
    expect([refused.address, refused.family]).toEqual(['', 0]);
    const missing = await lookup(async () => [], {});
    expect(missing.error).toMatchObject({
      kind: 'Unresolvable',
      code: 'ENOTFOUND',
      message: 'host "hooks.test" has no A or AAAA address',
    });
  });

  it('checks the port the request goes to', async () => {
    const list = allow({ cidrs: ['10.0.0.0/8'], reservedPorts: [{ port: 8080, what: 'HTTP API' }] });
    const lan: Resolver = async () => [{ address: '10.0.0.1', family: 4 }];
    expect((await lookup(lan, {}, list, 8080)).error?.message).toBe(
      `port 8080 on "hooks.test" (10.0.0.1) is Carhook's own HTTP API; webhooks may not reach it`,
    );
    expect(await lookup(lan, {}, list, 8081)).toEqual({ error: null, address: '10.0.0.1', family: 4 });
  });

  it('passes on a failure of the check itself', async () => {
    const broken = allow({
      cidrs: ['10.0.0.0/8'],
      reservedPorts: () => {
        throw new Error('ports unavailable');
      },
    });
    const r = await lookup(async () => [{ address: '10.0.0.1', family: 4 }], {}, broken, 80);
    expect([r.error?.message, r.address, r.family]).toEqual(['ports unavailable', '', 0]);
  });
});
