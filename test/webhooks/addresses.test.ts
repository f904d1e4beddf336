import { isIP } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyAddress, ipFamily } from '../../functions/core/webhooks/addresses';

describe('ipFamily (ipaddr.js) reads addresses exactly as node does', () => {
  it('agrees with node:net isIP on IPv4, IPv6 and near-miss strings', () => {
    const near = fc.oneof(
      fc.ipV4(),
      fc.ipV6(),
      fc.ipV4Extended(),
      fc.string({ unit: fc.constantFrom(...'0123456789abcdefx.:%[]'.split('')), maxLength: 24 }),
    );
    fc.assert(fc.property(near, (s) => ipFamily(s) === isIP(s)));
  });

  it('an IPv4-compatible address (::a.b.c.d) is not read as IPv4-mapped', () => {
    expect(classifyAddress('::127.0.0.1')).toEqual({ address: '::127.0.0.1', family: 6, class: 'reserved' });
    expect(classifyAddress('::ffff:127.0.0.1')).toMatchObject({ class: 'loopback', via: 'ipv4-mapped' });
  });
});
