import { describe, expect, it } from 'vitest';
import {
  ATTEMPT_LOOKBACK_MS,
  type AttemptLine,
  type AttemptPage,
  attemptLines,
  replayDeliveries,
  waitForReplay,
} from '../../bin/cli/replay-wait';
import { deliveryId, extraDeliveryId } from '../../functions/core/subscriptions/logic';

const SUB = 'sub_000000000000aa';
const RPL = 'rpl_test';
const T0 = Date.parse('2026-01-01T00:00:00.000Z');

function line(
  eventId: string,
  decision: AttemptLine['decision'],
  at: number,
  extra: Partial<AttemptLine> = {},
): AttemptLine {
  return {
    deliveryId: extraDeliveryId('replay', eventId, SUB, RPL),
    eventId,
    attemptNumber: 1,
    startedAt: new Date(at).toISOString(),
    outcome: decision === 'done' ? 'success' : 'failure',
    decision,
    ...extra,
  };
}

/** A fake attempt log: `log` newest first, served in pages of `size`; polls advance a fake clock. */
function fakeLog(size: number) {
  let log: AttemptLine[] = [];
  const reads: (string | undefined)[] = [];
  let clock = T0;
  return {
    set(lines: AttemptLine[]) {
      log = [...lines].sort((a, b) => b.startedAt.localeCompare(a.startedAt));
    },
    reads,
    now: () => clock,
    sleep: async (ms: number) => {
      clock += ms;
    },
    list: async (cursor: string | undefined): Promise<AttemptPage> => {
      reads.push(cursor);
      const from = cursor === undefined ? 0 : Number(cursor);
      const items = log.slice(from, from + size);
      return {
        items,
        serverTime: clock,
        ...(from + size < log.length ? { cursor: String(from + size) } : {}),
      };
    },
  };
}

describe('following a replay', () => {
  it("counts only the replay's own deliveries: an earlier fan-out of the same event is not a result", async () => {
    const log = fakeLog(100);
    log.set([
      // The original delivery of evt_a succeeded long ago: not this replay's.
      { ...line('evt_a', 'done', T0 - 1000), deliveryId: deliveryId('evt_a', SUB) },
      line('evt_a', 'retry', T0 + 10),
    ]);
    const progress: number[] = [];
    const r = await waitForReplay({
      subscriptionId: SUB,
      replayId: RPL,
      eventIds: ['evt_a'],
      acceptedAt: T0,
      listAttempts: log.list,
      timeoutMs: 3000,
      intervalMs: 1000,
      now: log.now,
      sleep: log.sleep,
      onProgress: (n) => progress.push(n),
    });
    expect(r).toEqual({
      delivered: [],
      failed: [],
      pending: [{ eventId: 'evt_a', attempts: 1, lastOutcome: 'failure' }],
      timedOut: true,
    });
    expect(progress).toEqual([]);
    expect(log.now() - T0).toBe(3000);
  });

  it('ends once each event is delivered, dead-lettered or parked, naming the failures', async () => {
    const log = fakeLog(2);
    const progress: number[] = [];
    let polls = 0;
    const r = await waitForReplay({
      subscriptionId: SUB,
      replayId: RPL,
      eventIds: ['evt_a', 'evt_b', 'evt_c'],
      acceptedAt: T0,
      listAttempts: async (cursor) => {
        if (cursor === undefined) {
          polls += 1;
          // Second poll: the rest arrives, one of them behind newer lines (an attempt that ran long).
          if (polls === 1) log.set([line('evt_a', 'done', T0 + 5), line('evt_b', 'retry', T0 + 6)]);
          else
            log.set([
              line('evt_a', 'done', T0 + 5),
              line('evt_b', 'retry', T0 + 6),
              line('evt_b', 'dead-letter', T0 + 900, { attemptNumber: 2, statusCode: 500 }),
              line('evt_c', 'disabled', T0 + 4, { outcome: 'gone', statusCode: 410 }),
            ]);
        }
        return log.list(cursor);
      },
      timeoutMs: 60_000,
      intervalMs: 1000,
      now: log.now,
      sleep: log.sleep,
      onProgress: (n) => progress.push(n),
    });
    expect(r.timedOut).toBe(false);
    expect(r.delivered).toEqual(['evt_a']);
    expect(r.failed).toEqual([
      { eventId: 'evt_b', outcome: 'failure', decision: 'dead-letter', statusCode: 500 },
      { eventId: 'evt_c', outcome: 'gone', decision: 'disabled', statusCode: 410 },
    ]);
    expect(r.pending).toEqual([]);
    expect(progress).toEqual([1, 3]);
    expect(polls).toBe(2);
  });

  it('reads back only as far as an attempt could still appear, not the whole history', async () => {
    const log = fakeLog(10);
    const old = Array.from({ length: 100 }, (_, i) =>
      line(`evt_old${i}`, 'done', T0 - ATTEMPT_LOOKBACK_MS - 10_000 - i * 1000),
    );
    log.set([...old, line('evt_a', 'retry', T0 + 1)]);
    await waitForReplay({
      subscriptionId: SUB,
      replayId: RPL,
      eventIds: ['evt_a'],
      acceptedAt: T0,
      listAttempts: log.list,
      timeoutMs: 1000,
      intervalMs: 1000,
      now: log.now,
      sleep: log.sleep,
    });
    // Two polls, each stopping at the first page that reaches past the lookback.
    expect(log.reads).toEqual([undefined, undefined]);
  });

  it('an empty replay is finished at once', async () => {
    const r = await waitForReplay({
      subscriptionId: SUB,
      replayId: RPL,
      eventIds: [],
      listAttempts: async () => {
        throw new Error('must not poll');
      },
      timeoutMs: 1000,
      intervalMs: 1000,
    });
    expect(r).toEqual({ delivered: [], failed: [], pending: [], timedOut: false });
  });

  it('derives the delivery ids the service gives replayed events', () => {
    expect([...replayDeliveries(SUB, RPL, ['evt_a']).entries()]).toEqual([
      [extraDeliveryId('replay', 'evt_a', SUB, RPL), 'evt_a'],
    ]);
  });

  it('skips attempt-log lines without the fields it needs', () => {
    const good = line('evt_a', 'done', T0);
    expect(attemptLines({ items: [good, { deliveryId: 'x' }, null, 'junk'], cursor: 'c1' })).toEqual({
      items: [good],
      cursor: 'c1',
    });
    expect(attemptLines('not json')).toEqual({ items: [] });
  });
});
