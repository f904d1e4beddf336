/**
 * Two small parts of detection stated exactly: the told-id memory of `sequenceMembership` and the
 * alert code book (`alertCodeBook`).
 */
import { describe, expect, it } from 'vitest';
import { alertCodeBook } from '../../functions/core/detection/alert-codes';
import { MAX_TOLD, membershipEvent, sequenceMembership } from '../../functions/core/detection/membership';
import { at, baselined, T0 } from './fixtures';

const vehicle = { id: 'veh-1', vin: 'VF3ABCDEFGH123456', brand: 'P' };
const IDENTITY = 'vin:VF3ABCDEFGH123456';
const added = (transition: string) =>
  membershipEvent('enrollment.vehicle.added', {
    enrollment: { id: 'enr-1', kind: 'oauth-user' },
    vehicle,
    transition,
    at: T0,
    operation: 'test',
  });

describe('sequenceMembership', () => {
  it('the same event given twice in one call is numbered once, the second skipped', () => {
    const e = added('first');
    const s = sequenceMembership(baselined(), IDENTITY, [e, e], new Date(Date.parse(at(1))));
    expect(s.events.map((x) => [x.id, x.sequence])).toEqual([[e.id, 1]]);
    expect(s.skipped).toEqual([e.id]);
    expect(s.state.sequence).toBe(1);
  });

  it('a state stored under the vehicle id is returned under the identity', () => {
    const legacy = { ...baselined(), vehicleId: 'veh-1' };
    const s = sequenceMembership(legacy, IDENTITY, [added('first')], new Date(Date.parse(at(1))));
    expect(s.state.vehicleId).toBe(IDENTITY);
  });

  it('beyond the bound, the newest told ids are kept, and of those told together the smallest ids', () => {
    const told = Object.fromEntries(
      // Stored in no order: 37 is prime to 100, so i × 37 mod 100 visits every number once.
      Array.from({ length: MAX_TOLD }, (_, i) => [
        `evt_${String((i * 37) % MAX_TOLD).padStart(3, '0')}`,
        at(1),
      ]),
    );
    const e = added('late');
    const s = sequenceMembership({ ...baselined(), told }, IDENTITY, [e], new Date(Date.parse(at(2))));
    const kept = Object.keys(s.state.told ?? {});
    expect(kept).toHaveLength(MAX_TOLD);
    expect(kept).toContain(e.id);
    // 100 told at minute 1 and one at minute 2: the one at 2 and the 99 smallest of minute 1.
    expect(kept.filter((k) => k !== e.id).sort()).toEqual(
      Array.from({ length: MAX_TOLD - 1 }, (_, i) => `evt_${String(i).padStart(3, '0')}`),
    );
    expect(s.state.told?.[e.id]).toBe(at(2));
  });
});

describe('alertCodeBook', () => {
  it('a code is read without surrounding spaces', () => {
    expect([...alertCodeBook([{ indicatorCode: ' alertOilPressure ', indicatorLabel: 'Oil' }])]).toEqual([
      ['Oil', 'alertOilPressure'],
    ]);
  });

  it('an entry without a label or with an empty one gives nothing', () => {
    expect(
      alertCodeBook([{ indicatorCode: 'alertA' }, { indicatorCode: 'alertB', indicatorLabel: '' }]).size,
    ).toBe(0);
  });

  it('a label listed twice under the same code is kept; under two codes it is left out', () => {
    const book = alertCodeBook([
      { indicatorCode: 'alertA', indicatorLabel: 'Oil' },
      { indicatorCode: 'alertA', indicatorLabel: 'Oil' },
      { indicatorCode: 'alertB', indicatorLabel: 'Brakes' },
      { indicatorCode: 'alertC', indicatorLabel: 'Brakes' },
    ]);
    expect([...book]).toEqual([['Oil', 'alertA']]);
  });
});
