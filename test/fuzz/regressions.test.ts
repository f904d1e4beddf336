/**
 * Regressions of what the response fuzzing (responses.test.ts) found, one behaviour per test. Each
 * failed (a thrown RangeError, a non-finite or mis-typed Ok value, a lying page, a leaked secret)
 * before its fix in functions/core/api.
 */
import { describe, expect, it } from 'vitest';
import { toIsoDate } from '../../functions/core/api';
import { toIsoFromCompact } from '../../functions/core/api/wire/common';
import { diff } from '../../functions/core/detection';
import { validateEvent } from '../../functions/core/events';
import { hal, json, TOKEN, testClient, VIN } from '../api/support';
import { context, obs } from '../detection/fixtures';

const SECRET = 'super-secret-value'; // the client secret of testClient

describe('dates the API client reads', () => {
  it('reads a numeric date beyond the Date range as no date instead of throwing', async () => {
    const { client } = testClient(() =>
      json({ id: 'veh-1', vin: VIN, createdAt: 1e20, updatedAt: 8.64e15 + 1 }),
    );
    const r = await client.v2.vehicle('veh-1');
    expect(r).toMatchObject({ ok: true, value: { id: 'veh-1', vin: VIN } });
    expect(r.ok && r.value.createdAt).toBeUndefined();
    expect(r.ok && r.value.updatedAt).toBeUndefined();
  });

  it('reads a date past year 9999 as no date, so dates keep comparing as strings', () => {
    expect(toIsoDate('+275760-09-13T00:00:00.000Z')).toBeUndefined();
    expect(toIsoDate(8.64e15)).toBeUndefined();
    expect(toIsoDate('9999-12-31T23:59:59.999Z')).toBe('9999-12-31T23:59:59.999Z');
    expect(toIsoDate(0)).toBe('1970-01-01T00:00:00.000Z');
  });

  it('reads a v1 compact date that is not a calendar date (month 13, 30 February) as no date', () => {
    expect(toIsoFromCompact('20261399999999')).toBeUndefined();
    expect(toIsoFromCompact('20260230120000')).toBeUndefined();
    expect(toIsoFromCompact('20260115110500')).toBe('2026-01-15T11:05:00.000Z');
    expect(toIsoFromCompact(202601151105)).toBe('2026-01-15T11:05:00.000Z');
  });
});

describe('numbers and counts the API client reads', () => {
  it('refuses a numeric string beyond the double range as Malformed instead of returning Infinity', async () => {
    const { client } = testClient(() => json({ days: '1e999', mileage: 800 }));
    const r = await client.v2.maintenance('veh-1');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.kind).toBe('Malformed');
      expect(r.error.kind === 'Malformed' && r.error.issues?.[0]).toMatch(/^days:/);
    }
  });

  it('ignores a HAL total that is not a count: a full first page never claims the list complete', async () => {
    const a = { id: 'a', active: true, message: 'alertOilPressure' };
    const b = { id: 'b', active: true, message: 'alertTirePressure' };
    const { client } = testClient((req) => {
      const offset = Number(req.url.searchParams.get('offset') ?? 0);
      return json(hal('alerts', offset === 0 ? [a] : offset === 1 ? [b] : [], -1));
    });
    const first = await client.v2.alerts({ vehicleId: 'veh-1', limit: 1 });
    expect(first).toMatchObject({ ok: true, value: { complete: false, total: 2 } });
    // Before: total -1 ended the iteration after page 1, and the poll saw a "complete" list
    // without alert b, which fixed it.
    const all = await client.v2.alerts.all({ vehicleId: 'veh-1', limit: 1 });
    expect(all.ok && all.value.items.map((x) => x.id)).toEqual(['a', 'b']);
    for (const total of [1e308, 1.5, '1e999']) {
      const { client: c } = testClient(() => json(hal('alerts', [a], total as number)));
      const page = await c.v2.alerts({ vehicleId: 'veh-1' });
      expect(page.ok && Number.isSafeInteger(page.value.total)).toBe(true);
    }
  });
});

describe('responses around the body', () => {
  it('fails a 429 whose X-RateLimit-Reset lies beyond the Date range as RateLimited instead of throwing', async () => {
    for (const reset of ['1e300', '99999999999999']) {
      const { client } = testClient(() => json({}, 429, { 'x-ratelimit-reset': reset }), {
        retry: { maxAttempts: 1 },
      });
      const r = await client.v2.vehicle('veh-1');
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.kind).toBe('RateLimited');
        expect(r.error.kind === 'RateLimited' && r.error.resetAt).toBeUndefined();
      }
    }
  });

  it('redacts a secret that names a record key in the Malformed message and issues', async () => {
    const { client } = testClient(() =>
      json({ global: { [SECRET]: { score: 'x' }, [TOKEN]: 5 }, detailed: {} }),
    );
    const r = await client.v2.tripEcodriving('trip-1');
    expect(r.ok).toBe(false);
    if (!r.ok && r.error.kind === 'Malformed') {
      const texts = [r.error.message, r.error.excerpt, ...(r.error.issues ?? [])].join('\n');
      expect(texts).toContain('[REDACTED]');
      expect(texts).not.toContain(SECRET);
      expect(texts).not.toContain(TOKEN);
    } else throw new Error(`expected Malformed, got ${JSON.stringify(r)}`);
  });

  it('keeps only the text fields of v1 eco-driving labels', async () => {
    const { client } = testClient(() =>
      json({
        vin: VIN,
        contract: 'C1',
        globalEvaluation: {
          drivingMark: 71,
          drivingMarkLabel: { evaluation: true, advice: { x: 1 }, label: 'Driving mark' },
          roadProfile: 60,
          roadProfileLabel: ['not', 'a', 'label'],
        },
      }),
    );
    const r = await client.v1.ecoEvaluation({ vin: VIN, contract: 'C1', locale: 'en', brand: 'C' });
    expect(r.ok && r.value.labels).toEqual({ drivingMark: { label: 'Driving mark' }, roadProfile: {} });
    expect(r.ok && r.value.global).toEqual({ drivingMark: 71, roadProfile: 60 });
  });
});

describe('token responses', () => {
  it('refuses a token lifetime beyond any date as Malformed instead of an Invalid Date', async () => {
    for (const expiresIn of [1e308, 9e12]) {
      const { client } = testClient(() =>
        json({ access_token: 'at-1', token_type: 'bearer', expires_in: expiresIn, refresh_token: 'rt-1' }),
      );
      const r = await client.auth.refresh('rt-0');
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.kind).toBe('Malformed');
        expect(r.error.message).toMatch(/expires_in/);
      }
    }
    const { client } = testClient(() =>
      json({ access_token: 'at-1', token_type: 'bearer', expires_in: 3600, refresh_token: 'rt-1' }),
    );
    const r = await client.auth.refresh('rt-0');
    expect(r.ok && r.value.expiresAt?.getTime()).toBe(Date.UTC(2026, 10, 22, 11, 0, 0));
  });
});

describe('detection inputs', () => {
  it('refuses a maintenance countdown beyond ±2^53 with a rejected entry instead of an invalid event', () => {
    for (const [days, mileage, field] of [
      [1e308, 500, 'items[0].days'],
      [10, -1e300, 'items[0].mileage'],
    ] as const) {
      const r = diff(undefined, [obs('v2.maintenance', [{ days, mileage }], 0)], context(1));
      expect(r.events.every((e) => validateEvent(e).ok)).toBe(true);
      expect(r.events).toEqual([]);
      expect(r.rejected).toMatchObject([{ kind: 'Malformed', source: 'v2.maintenance', field }]);
    }
    const fine = diff(
      undefined,
      [obs('v1.maintenance', [{ vin: VIN, contract: 'C1', days: 10, mileage: 500 }], 0)],
      {
        ...context(1),
        enrollment: { id: 'enr-fleet', kind: 'fleet-contract' },
      },
    );
    expect(fine.rejected).toEqual([]);
    expect(fine.events.map((e) => e.type)).toEqual(['vehicle.maintenance.due']);
    expect(fine.events.every((e) => validateEvent(e).ok)).toBe(true);
  });
});
