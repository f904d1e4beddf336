import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatEventLine, LocalBus } from '../../functions/adapters/local/bus';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import { publishEvents } from '../../functions/core/publishing/publisher';
import { envelope, events } from './fixtures';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'carhook-bus-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const capture = () => {
  const lines: string[] = [];
  return { lines, out: { write: (chunk: string) => lines.push(...chunk.split('\n').filter(Boolean)) } };
};

const readJsonl = async (path: string): Promise<EventEnvelope[]> =>
  (await readFile(path, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as EventEnvelope);

describe('local bus', () => {
  it('prints one compact line per event and appends each envelope to the JSONL file, creating its directory', async () => {
    const { lines, out } = capture();
    const path = join(dir, 'nested', 'deeper', 'events.jsonl');
    const bus = new LocalBus({ out, jsonlPath: path });
    const batch = events(3);
    expect(await bus.publish(batch)).toEqual({ published: ['evt-0', 'evt-1', 'evt-2'], failed: [] });
    await bus.publish([envelope('evt-3', { type: 'enrollment.vehicle.added' })]);
    expect(await readJsonl(path)).toEqual([
      ...batch,
      envelope('evt-3', { type: 'enrollment.vehicle.added' }),
    ]);
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(
      /^2026-11-22T03:00:05\.000Z\s+webhook\.test\s+veh-1\s+#1 {2}evt-0 {2}\(occurred 2026-11-22T03:00:00\.000Z\)$/,
    );
  });

  it('is silent with out: null and writes no file without a path', async () => {
    const bus = new LocalBus({ out: null });
    expect((await bus.publish(events(1))).published).toEqual(['evt-0']);
  });

  it('hands every event to every subscriber, in order', async () => {
    const bus = new LocalBus({ out: null });
    const a: string[] = [];
    const b: string[] = [];
    bus.subscribe((e) => {
      a.push(e.id);
    });
    bus.subscribe(async (e) => {
      b.push(e.id);
    });
    await bus.publish(events(3));
    expect(a).toEqual(['evt-0', 'evt-1', 'evt-2']);
    expect(b).toEqual(a);
  });

  it('a failing subscriber does not keep the event from the others, and the event is reported retryable', async () => {
    const bus = new LocalBus({ out: null });
    const healthy: string[] = [];
    bus.subscribe(
      () => {
        throw new Error('fan-out table unavailable');
      },
      { name: 'webhook-fan-out' },
    );
    bus.subscribe(
      (e) => {
        healthy.push(e.id);
      },
      { name: 'printer' },
    );
    const result = await bus.publish(events(2));
    expect(healthy).toEqual(['evt-0', 'evt-1']);
    expect(result.published).toEqual([]);
    expect(result.failed).toEqual([
      expect.objectContaining({
        id: 'evt-0',
        retryable: true,
        code: 'SubscriberFailed',
        message: expect.stringMatching(/webhook-fan-out: fan-out table unavailable/),
      }),
      expect.objectContaining({ id: 'evt-1', retryable: true }),
    ]);
  });

  it('on retry calls only the subscribers that missed the event, and logs it once', async () => {
    const { lines, out } = capture();
    const path = join(dir, 'events.jsonl');
    const bus = new LocalBus({ out, jsonlPath: path });
    let flaky = 0;
    const other: string[] = [];
    bus.subscribe(
      () => {
        flaky++;
        if (flaky === 1) throw new Error('first call fails');
      },
      { name: 'flaky' },
    );
    bus.subscribe(
      (e) => {
        other.push(e.id);
      },
      { name: 'other' },
    );
    const outcome = await publishEvents([envelope('e1')], {
      bus,
      marker: { markPublished: async () => {} },
      sleep: async () => {},
    });
    expect(outcome.published).toEqual(['e1']);
    expect(flaky).toBe(2);
    expect(other).toEqual(['e1']);
    expect((await readJsonl(path)).map((e) => e.id)).toEqual(['e1']);
    expect(lines).toHaveLength(1);
  });

  it('reports a JSONL append failure as retryable instead of crashing', async () => {
    const blocker = join(dir, 'not-a-dir');
    await writeFile(blocker, 'a file where the directory should be');
    const bus = new LocalBus({ out: null, jsonlPath: join(blocker, 'events.jsonl') });
    let called = false;
    bus.subscribe(() => {
      called = true;
    });
    const result = await bus.publish(events(1));
    expect(result.failed).toEqual([
      expect.objectContaining({ id: 'evt-0', retryable: true, code: 'JsonlAppendFailed' }),
    ]);
    expect(called).toBe(false);
  });

  it('stops calling a subscriber once unsubscribed, and refuses a duplicate name', async () => {
    const bus = new LocalBus({ out: null });
    const got: string[] = [];
    const unsubscribe = bus.subscribe(
      (e) => {
        got.push(e.id);
      },
      { name: 'x' },
    );
    expect(() => bus.subscribe(() => {}, { name: 'x' })).toThrow(/already exists/);
    await bus.publish([envelope('a')]);
    unsubscribe();
    await bus.publish([envelope('b')]);
    expect(got).toEqual(['a']);
  });

  it('formats events without a vehicle with their enrollment id', () => {
    const { vehicle: _v, ...rest } = envelope('e', { type: 'enrollment.reauthorization_required' });
    expect(formatEventLine(rest)).toMatch(
      /enrollment\.reauthorization_required\s+enr-1\s+#\d+ {2}e {2}\(occurred /,
    );
  });

  it('prints events in detection order, led by their detection time, with their sequence', async () => {
    const lines: string[] = [];
    const bus = new LocalBus({ out: { write: (t: string) => lines.push(...t.split('\n').filter(Boolean)) } });
    const at = (s: number) => new Date(Date.UTC(2026, 10, 22, 10, 0, s)).toISOString();
    const old = {
      ...envelope('old'),
      occurredAt: '2025-01-01T00:00:00.000Z',
      detectedAt: at(5),
      sequence: 2,
    };
    const first = { ...envelope('first'), occurredAt: at(4), detectedAt: at(5), sequence: 1 };
    const earlier = { ...envelope('earlier'), occurredAt: at(1), detectedAt: at(2), sequence: 3 };
    await bus.publish([old, first, earlier]);
    expect(lines.map((l) => l.split(/\s+/)[0])).toEqual([at(2), at(5), at(5)]);
    expect(lines.map((l) => /#(\d+)/.exec(l)?.[1])).toEqual(['3', '1', '2']);
    expect(lines[2]).toContain('(occurred 2025-01-01T00:00:00.000Z)');
  });
});
