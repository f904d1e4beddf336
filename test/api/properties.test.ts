import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redact, toIsoDate } from '../../functions/core/api';
import { excerpt } from '../../functions/core/api/errors';
import { wNumber } from '../../functions/core/api/wire/common';

describe('properties', () => {
  it('redact removes every known secret wherever it appears in a text', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 8, maxLength: 40 }).filter((s) => !s.includes('[REDACTED]')),
        fc.string(),
        fc.string(),
        (secret, before, after) => {
          const out = redact(`${before}${secret}${after}`, [secret]);
          expect(out).not.toContain(secret);
        },
      ),
    );
  });

  it('redact removes bearer tokens and OAuth parameters it was not told about', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9._~-]{12,40}$/), (token) => {
        for (const text of [
          `Authorization: Bearer ${token}`,
          `grant_type=refresh_token&refresh_token=${token}`,
          `{"access_token":"${token}","expires_in":60}`,
          `/cb?code=${token}&state=x`,
        ]) {
          expect(redact(text)).not.toContain(token);
        }
      }),
    );
  });

  it('an excerpt is never longer than 200 characters', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2000 }), (text) => {
        expect(excerpt(text).length).toBeLessThanOrEqual(200);
      }),
    );
  });

  it('both date forms (+0000 and Z) name the same instant', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('2000-01-01Z'), max: new Date('2100-01-01Z'), noInvalidDate: true }),
        (d) => {
          const z = d.toISOString();
          const offset = z.replace('Z', '+0000');
          expect(toIsoDate(offset)).toBe(z);
          expect(toIsoDate(z)).toBe(z);
        },
      ),
    );
  });

  it('a number sent as a string reads as the same number', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e9, max: 1e9 }), (n) => {
        expect(wNumber.parse(String(n))).toBe(n === 0 ? 0 : n);
      }),
    );
  });
});
