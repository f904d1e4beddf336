import { describe, expect, it } from 'vitest';
import { diff } from '../../functions/core/detection/diff';
import { silenceThreshold } from '../../functions/core/detection/reporting';
import type { VehicleState } from '../../functions/core/detection/state';
import { idOf } from './behaviour';
import { at, baselined, context, obs, vehicleEvent } from './fixtures';

const HOUR_MIN = 60;
const config = { silenceAfterMs: 48 * 3_600_000 };
/** A poll at `minute` whose events read succeeded and returned `items`. */
const poll = (state: VehicleState, minute: number, items: Parameters<typeof vehicleEvent>[] = []) =>
  diff(
    state,
    [
      obs(
        'v2.events',
        items.map((args) => vehicleEvent(...args)),
        minute,
      ),
    ],
    context(minute, config),
  );

describe('a vehicle that falls silent', () => {
  it('emits vehicle.reporting.stopped once when its records stop advancing for 48 h, and resumed once when one comes', () => {
    let s = poll(baselined(config), 10, [['a1', 'REFUEL', 5]]).state;
    expect(s.lastActivityAt).toBe(at(5));
    // 48 h after the last record, minus a minute: nothing.
    const before = poll(s, 5 + 48 * HOUR_MIN - 1);
    expect(before.events).toEqual([]);
    s = before.state;
    const stopped = poll(s, 5 + 48 * HOUR_MIN + 30);
    expect(stopped.events.map((e) => [e.type, e.id, e.occurredAt, e.sequence, e.data])).toEqual([
      [
        'vehicle.reporting.stopped',
        idOf('vehicle.reporting.stopped', 'reporting', `stopped:${at(5)}`),
        at(5 + 48 * HOUR_MIN),
        s.sequence + 1,
        {
          silentSince: at(5),
          lastRecordAt: at(5),
          thresholdS: 48 * 3600,
          basis: 'default',
          readAt: at(5 + 48 * HOUR_MIN + 30),
        },
      ],
    ]);
    expect(stopped.changed).toBe('state');
    s = stopped.state;
    // Told once: the steady polls after it tell nothing and write nothing.
    for (const minute of [5 + 49 * HOUR_MIN, 5 + 72 * HOUR_MIN]) {
      const steady = poll(s, minute);
      expect(steady.events).toEqual([]);
      expect(steady.changed).not.toBe('state');
      s = steady.state;
    }
    const resumed = poll(s, 5 + 80 * HOUR_MIN, [['a2', 'REFUEL', 5 + 79 * HOUR_MIN]]);
    expect(resumed.events.map((e) => [e.type, e.id, e.occurredAt, e.data])).toEqual([
      ['vehicle.refuel.detected', expect.any(String), at(5 + 79 * HOUR_MIN), expect.any(Object)],
      [
        'vehicle.reporting.resumed',
        idOf('vehicle.reporting.resumed', 'reporting', `resumed:${at(5)}`),
        at(5 + 79 * HOUR_MIN),
        { silentSince: at(5), resumedAt: at(5 + 79 * HOUR_MIN), silentForS: 79 * 3600 },
      ],
    ]);
    expect(resumed.events.map((e) => e.sequence)).toEqual([
      stopped.state.sequence + 1,
      stopped.state.sequence + 2,
    ]);
    // The gap the silence spanned is not learned from.
    expect(resumed.state.reporting).toEqual({ gaps: 0, longestGapMs: 0 });
    expect(poll(resumed.state, 5 + 81 * HOUR_MIN).events).toEqual([]);
  });

  it('tells nothing when the read failed or was partial, nor on a poll that read no activity source', () => {
    const s = poll(baselined(config), 10, [['a1', 'REFUEL', 5]]).state;
    const late = 5 + 50 * HOUR_MIN;
    const partial = diff(s, [obs('v2.events', [], late, { complete: false })], context(late, config));
    expect(partial.events).toEqual([]);
    const maintenanceOnly = diff(
      s,
      [obs('v2.maintenance', [{ days: 100, mileageKm: 9000 } as never], late)],
      context(late, config),
    );
    expect(maintenanceOnly.events.map((e) => e.type)).not.toContain('vehicle.reporting.stopped');
  });

  it('learns the threshold from the gaps of its own history: three times the longest, bounded', () => {
    let s = baselined(config);
    // Six records two hours apart: five gaps of 2 h.
    s = poll(
      s,
      12 * HOUR_MIN,
      [0, 2, 4, 6, 8, 10].map((h, i) => [`r${i}`, 'REFUEL', h * HOUR_MIN] as Parameters<typeof vehicleEvent>),
    ).state;
    expect(s.reporting).toEqual({ gaps: 5, longestGapMs: 2 * 3_600_000 });
    // 3 × 2 h = 6 h, below the lower bound of 48 h / 4 = 12 h.
    expect(silenceThreshold(s.reporting, config.silenceAfterMs)).toEqual({
      ms: 12 * 3_600_000,
      basis: 'learned',
    });
    const stopped = poll(s, 10 * HOUR_MIN + 12 * HOUR_MIN);
    expect(
      stopped.events.map((e) => [
        e.type,
        (e.data as { thresholdS?: number }).thresholdS,
        (e.data as { basis?: string }).basis,
      ]),
    ).toEqual([['vehicle.reporting.stopped', 12 * 3600, 'learned']]);
    expect(silenceThreshold({ gaps: 9, longestGapMs: 30 * 24 * 3_600_000 }, config.silenceAfterMs).ms).toBe(
      7 * 48 * 3_600_000,
    );
    expect(silenceThreshold({ gaps: 4, longestGapMs: 3_600_000 }, config.silenceAfterMs)).toEqual({
      ms: 48 * 3_600_000,
      basis: 'default',
    });
  });

  it('counts from the first poll when the vehicle never had a record', () => {
    const first = baselined(config);
    const silent = poll(first, 48 * HOUR_MIN);
    expect(silent.events.map((e) => [e.type, e.data])).toEqual([
      [
        'vehicle.reporting.stopped',
        { silentSince: at(0), thresholdS: 48 * 3600, basis: 'default', readAt: at(48 * HOUR_MIN) },
      ],
    ]);
  });
});
