import { describe, expect, it } from 'vitest';
import { scheduleNeedsWrite } from '../../functions/core/store/schedule';
import { iso, MINUTE, T0 } from './fixtures';

const stored = {
  nextPollAt: iso(T0 - 5 * MINUTE),
  hints: { activeAlerts: false, priority: 0 },
  resourcePolledAt: {},
};

describe('scheduleNeedsWrite (keeps the steady state write-free)', () => {
  it('skips the write when the vehicle stays due by the next cycle', () => {
    expect(scheduleNeedsWrite(stored, { nextPollAt: iso(T0 + MINUTE) }, T0)).toBe(false);
    expect(scheduleNeedsWrite(stored, { nextPollAt: iso(T0), lastPolledAt: iso(T0) }, T0)).toBe(false);
  });

  it('writes when the cadence slows down beyond one cycle', () => {
    expect(scheduleNeedsWrite(stored, { nextPollAt: iso(T0 + 10 * MINUTE) }, T0)).toBe(true);
  });

  it('writes when a future nextPollAt moves by a cycle or more, not for less', () => {
    const later = { ...stored, nextPollAt: iso(T0 + 60 * MINUTE) };
    expect(scheduleNeedsWrite(later, { nextPollAt: iso(T0 + 60 * MINUTE + 30_000) }, T0)).toBe(false);
    expect(scheduleNeedsWrite(later, { nextPollAt: iso(T0 + 30 * MINUTE) }, T0)).toBe(true);
  });

  it('writes when a hint or a resource time changes, and not when they are equal', () => {
    expect(scheduleNeedsWrite(stored, { nextPollAt: iso(T0), hints: { activeAlerts: true } }, T0)).toBe(true);
    expect(scheduleNeedsWrite(stored, { nextPollAt: iso(T0), hints: { activeAlerts: false } }, T0)).toBe(
      false,
    );
    expect(scheduleNeedsWrite(stored, { nextPollAt: iso(T0), resourcePolledAt: { map: iso(T0) } }, T0)).toBe(
      true,
    );
    const withMap = { ...stored, resourcePolledAt: { map: iso(T0) } };
    expect(scheduleNeedsWrite(withMap, { nextPollAt: iso(T0), resourcePolledAt: { map: iso(T0) } }, T0)).toBe(
      false,
    );
  });
});
