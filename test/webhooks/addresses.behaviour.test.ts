import { describe, expect, it } from 'vitest';
import { classifyAddress, parseLooseIpv4 } from '../../functions/core/webhooks/addresses';
import {
  type AllowList,
  type AllowListInput,
  checkAddress,
  compileAllowList,
  parseAllowEntries,
} from '../../functions/core/webhooks/ssrf';

/**
 * The SSRF guard's edges not stated elsewhere: IPv6 zone ids before an embedded dotted quad,
 * strings that only look like inet_aton forms (they are names), half-bracketed hosts, allow-list
 * entries that only look like addresses, and an allow-list matched through the IPv4 address an
 * IPv6 one carries (IPv4-mapped, NAT64, 6to4).
 */

function allow(input: AllowListInput): AllowList {
  const compiled = compileAllowList(input);
  if (!compiled.ok) throw new Error(compiled.error.message);
  return compiled.value;
}

describe('IPv6 with a zone id', () => {
  it('classifies an embedded dotted quad followed by a zone id by that IPv4 address', () => {
    expect(classifyAddress('::ffff:127.0.0.1%eth0')).toStrictEqual({
      address: '::ffff:127.0.0.1%eth0',
      family: 6,
      class: 'loopback',
      via: 'ipv4-mapped',
      embedded: '127.0.0.1',
    });
    expect(classifyAddress('::ffff:8.8.8.8%1')).toStrictEqual({
      address: '::ffff:8.8.8.8%1',
      family: 6,
      class: 'public',
      via: 'ipv4-mapped',
      embedded: '8.8.8.8',
    });
    expect(classifyAddress('fe80::10.0.0.1%eth0')).toStrictEqual({
      address: 'fe80::10.0.0.1%eth0',
      family: 6,
      class: 'link-local',
    });
    expect(classifyAddress('fe80::1%eth0')).toStrictEqual({
      address: 'fe80::1%eth0',
      family: 6,
      class: 'link-local',
    });
  });
});

describe('names that only look like inet_aton forms', () => {
  it('more than four parts is a name, even when the extra part is 0', () => {
    for (const host of ['127.0.0.1.0', '10.0.0.0.1', '1.2.3.4.5', '0.0.0.0.0.0']) {
      expect(parseLooseIpv4(host)).toBeUndefined();
      expect(classifyAddress(host)).toBeUndefined();
    }
  });

  it('a part is hex only from its start (0x) to its end, octal likewise', () => {
    // Text before `0x`, a non-hex digit after it, a non-octal digit or letter after a leading 0.
    for (const host of ['ab0x10', '1.ab0x10', '0x1g', '0x7f.1g', '017z', '0779', '127.0.0.01z']) {
      expect(parseLooseIpv4(host)).toBeUndefined();
      expect(classifyAddress(host)).toBeUndefined();
    }
    // The same parts well formed are addresses.
    expect(parseLooseIpv4('0x10')).toBe('0.0.0.16');
    expect(parseLooseIpv4('0x7f.1')).toBe('127.0.0.1');
    expect(parseLooseIpv4('017')).toBe('0.0.0.15');
    expect(parseLooseIpv4('0177.0.0.01')).toBe('127.0.0.1');
  });

  it('a host closed by a bracket it never opened is a name', () => {
    for (const host of ['1::1]', 'a::1]', '1.2.3.4]']) expect(classifyAddress(host)).toBeUndefined();
  });
});

describe('allow-list entries', () => {
  it('a half-bracketed IPv6 entry is no address: it goes to the names (where compiling refuses it)', () => {
    expect(parseAllowEntries(['[1::1', '1::1]', '[::1]', '[fd00::]/8'])).toStrictEqual({
      cidrs: ['::1', 'fd00::/8'],
      hostnames: ['[1::1', '1::1]'],
    });
    const compiled = compileAllowList(parseAllowEntries(['[1::1']));
    expect(compiled.ok).toBe(false);
  });
});

describe('an allow-list and the IPv4 address an IPv6 one carries', () => {
  it('an IPv4 range allows the IPv4-mapped form of its addresses, and an IPv4-mapped range their IPv4 form', () => {
    const v4 = allow({ cidrs: ['10.0.0.0/8'] });
    expect(v4.allowsAddress('::ffff:10.1.2.3')).toBe(true);
    expect(v4.allowsAddress('::ffff:11.1.2.3')).toBe(false);
    const mapped = allow({ cidrs: ['::ffff:10.0.0.0/104'] });
    expect(mapped.allowsAddress('10.1.2.3')).toBe(true);
    expect(mapped.allowsAddress('11.1.2.3')).toBe(false);
  });

  it('a NAT64 or 6to4 address is allowed by its embedded IPv4 address', () => {
    const list = allow({ cidrs: ['10.0.0.0/8'] });
    expect(checkAddress('64:ff9b::a00:1', '64:ff9b::a00:1', list)).toStrictEqual({
      ok: true,
      value: { address: '64:ff9b::a00:1', family: 6, class: 'private', via: 'nat64', embedded: '10.0.0.1' },
    });
    expect(checkAddress('2002:a00:1::', '2002:a00:1::', list).ok).toBe(true);
    // Not the one carrying an address outside the range.
    expect(checkAddress('2002:c0a8:1::', '2002:c0a8:1::', list).ok).toBe(false);
  });

  it('or by the IPv6 address itself, whatever the IPv4 address it carries', () => {
    const list = allow({ cidrs: ['64:ff9b::/96'] });
    expect(checkAddress('64:ff9b::a00:1', '64:ff9b::a00:1', list).ok).toBe(true);
    // The embedded address alone is not on the list.
    expect(checkAddress('10.0.0.1', '10.0.0.1', list).ok).toBe(false);
  });
});
