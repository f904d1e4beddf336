import { afterEach, describe, expect, it } from 'vitest';
import { createSender } from '../../functions/adapters/webhooks/sender';
import {
  createKeyedLimiter,
  LimiterOverloaded,
  validateLimiterOptions,
} from '../../functions/core/webhooks/limiter';
import { generateSecret } from '../../functions/core/webhooks/signing';
import { loopbackAllowList, startReceiver } from './receiver';

function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('keyed limiter', () => {
  it('never runs more than perKey tasks of one key, nor more than global in all', async () => {
    const limiter = createKeyedLimiter({ perKey: 2, global: 3 });
    let running = 0;
    let maxRunning = 0;
    const perKeyMax = new Map<string, number>();
    const perKeyRunning = new Map<string, number>();
    const task = (key: string) => async () => {
      running++;
      perKeyRunning.set(key, (perKeyRunning.get(key) ?? 0) + 1);
      maxRunning = Math.max(maxRunning, running);
      perKeyMax.set(key, Math.max(perKeyMax.get(key) ?? 0, perKeyRunning.get(key) ?? 0));
      await new Promise((r) => setImmediate(r));
      running--;
      perKeyRunning.set(key, (perKeyRunning.get(key) ?? 0) - 1);
      return key;
    };
    const keys = ['a', 'a', 'a', 'a', 'b', 'b', 'c', 'a', 'c', 'b'];
    const results = await Promise.all(keys.map((k) => limiter.run(k, task(k))));
    expect(results).toEqual(keys);
    expect(maxRunning).toBe(3);
    expect(Math.max(...perKeyMax.values())).toBe(2);
    expect(limiter.stats().inFlight).toBe(0);
    expect(limiter.stats().queued).toBe(0);
  });

  it('lets other keys through while one key is stuck at its limit', async () => {
    const limiter = createKeyedLimiter({ perKey: 2, global: 4 });
    const stuck = gate();
    const hung = Array.from({ length: 5 }, () => limiter.run('slow', () => stuck.opened));
    const done = await Promise.all(
      Array.from({ length: 20 }, (_, i) => limiter.run(`fast-${i % 3}`, async () => i)),
    );
    expect(done).toHaveLength(20);
    expect(limiter.stats().inFlightFor('slow')).toBe(2);
    expect(limiter.stats().queuedFor('slow')).toBe(3);
    stuck.open();
    await Promise.all(hung);
    expect(limiter.stats().inFlight).toBe(0);
  });

  it('starts waiting keys round-robin rather than draining one key first', async () => {
    const limiter = createKeyedLimiter({ perKey: 5, global: 1 });
    const first = gate();
    const order: string[] = [];
    const blocker = limiter.run('x', () => first.opened);
    const all = [
      ...['a1', 'a2', 'a3'].map((n) => limiter.run('a', async () => order.push(n))),
      ...['b1', 'b2'].map((n) => limiter.run('b', async () => order.push(n))),
    ];
    first.open();
    await Promise.all([blocker, ...all]);
    expect(order).toEqual(['a1', 'b1', 'a2', 'b2', 'a3']);
  });

  it('passes results and failures through, and a failing task frees its slot', async () => {
    const limiter = createKeyedLimiter({ perKey: 1, global: 1 });
    await expect(limiter.run('k', async () => Promise.reject(new Error('nope')))).rejects.toThrow('nope');
    await expect(
      limiter.run('k', () => {
        throw new Error('sync');
      }),
    ).rejects.toThrow('sync');
    expect(await limiter.run('k', async () => 42)).toBe(42);
  });

  it('refuses work beyond maxQueuedPerKey with an Overloaded error naming the key', async () => {
    const limiter = createKeyedLimiter({ perKey: 1, global: 10, maxQueuedPerKey: 1 });
    const stuck = gate();
    const running = limiter.run('sub_1', () => stuck.opened);
    const waiting = limiter.run('sub_1', async () => 'ran');
    const refused = limiter.run('sub_1', async () => 'never');
    await expect(refused).rejects.toBeInstanceOf(LimiterOverloaded);
    await expect(refused).rejects.toMatchObject({ kind: 'Overloaded', key: 'sub_1' });
    stuck.open();
    await running;
    expect(await waiting).toBe('ran');
  });

  it('reports invalid options by field', () => {
    expect(validateLimiterOptions({ perKey: 0, global: 1 })?.field).toBe('perKey');
    expect(validateLimiterOptions({ perKey: 1, global: 1.5 })?.field).toBe('global');
    expect(validateLimiterOptions({ perKey: 1, global: 1 })).toBeUndefined();
  });
});

describe('a hung endpoint does not delay deliveries to other subscriptions', () => {
  it('delivers every event to the healthy receiver while the hung one holds its slots', async () => {
    const hung = await startReceiver(() => {
      // accepts the request, never answers
    });
    const healthy = await startReceiver();
    cleanups.push(hung.close, healthy.close);
    const sender = createSender({
      allowInsecureLoopback: true,
      allowList: loopbackAllowList(),
      timeoutMs: 60_000,
    });
    cleanups.push(sender.close);
    const limiter = createKeyedLimiter({ perKey: 2, global: 4 });
    const secrets = { current: generateSecret() };
    const send = (subscription: string, url: string, i: number) =>
      limiter.run(subscription, () => sender.send({ url, id: `evt_${i}`, body: `{"i":${i}}`, secrets }));

    const toHung = Array.from({ length: 6 }, (_, i) => send('sub_hung', hung.url(), i));
    const toHealthy = await Promise.all(
      Array.from({ length: 30 }, (_, i) => send('sub_ok', healthy.url(), i)),
    );

    expect(toHealthy.every((a) => a.outcome === 'success')).toBe(true);
    expect(healthy.requests).toHaveLength(30);
    await expect.poll(() => hung.requests.length).toBe(2);
    expect(limiter.stats().queuedFor('sub_hung')).toBe(4);
    // Closing the hung receiver ends its attempts as network failures; nothing is left waiting.
    await hung.close();
    const ended = await Promise.all(toHung);
    expect(ended.every((a) => a.outcome === 'network')).toBe(true);
  });
});
