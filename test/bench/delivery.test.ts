import { describe, expect, inject, it } from 'vitest';
import { run, toMarkdown } from '../../bench/delivery';
import { machine, renderReport } from '../../bench/run';

/** Smoke test: the delivery bench runs end to end with tiny sizes. Nothing here is timed. */
describe('delivery bench with tiny sizes', () => {
  it('delivers every offered event through both stores and renders its section', async () => {
    const r = await run({
      idleSamples: 5,
      offeredRate: 50,
      fixedSeconds: 0.3,
      saturationSeconds: 0.3,
      window: 8,
      ceilingSeconds: 0.2,
      dynamodb: { endpoint: inject('dynamoEndpoint') },
    });
    expect(r.stores.map((s) => s.store)).toEqual(['memory', 'dynamodb']);
    for (const s of r.stores) {
      expect(s.problems).toBe(0);
      expect(s.queued).toBe(0);
      expect(s.idle.missed).toBe(0);
      expect(s.idle.p50Ms).toBeGreaterThan(0);
      expect(s.idle.bareP50Ms).toBeGreaterThan(0);
      for (const phase of [s.fixed.carhook, s.fixed.bare, s.saturation.carhook, s.saturation.bare]) {
        expect(phase.offered).toBeGreaterThan(0);
        expect(phase.delivered).toBe(phase.offered);
        expect(phase.deliveredPerSecond).toBeGreaterThan(0);
        expect(phase.p99Ms).toBeGreaterThanOrEqual(phase.p50Ms);
      }
    }
    const c = r.dynamoCeiling;
    if (!c) throw new Error('the DynamoDB Local write rate was not measured');
    expect(c.conditionalPutsPerSecond).toBeGreaterThan(0);
    expect(c.transactionsPerSecond).toBeGreaterThan(0);
    expect(c.writeFirstDeliveriesPerSecond).toBeLessThanOrEqual(
      Math.min(c.conditionalPutsPerSecond, c.transactionsPerSecond),
    );
    expect(c.batchWritesPerSecond).toBeGreaterThan(0);
    expect(c.deliveriesPerSecond).toBe(c.batchWritesPerSecond * 12);
    const dynamo = r.stores.find((s) => s.store === 'dynamodb');
    // First attempts are recorded after the fact, in batches: fewer write requests per delivery than
    // the 2 of write-first (only an attempt outliving the hold on a loaded machine still costs 2).
    expect(dynamo?.dynamoRequests?.BatchWriteItem).toBeGreaterThan(0);
    expect(dynamo?.writeRequestsPerDelivery).toBeGreaterThan(0);
    expect(dynamo?.writeRequestsPerDelivery).toBeLessThan(2);

    const md = toMarkdown(r);
    expect(md).toContain('| memory stores |');
    expect(md).toContain('| DynamoDB stores on DynamoDB Local |');
    expect(md).toMatch(/Targets, memory stores: ≥ 500 deliveries\/s: \*\*(met|not met)\*\*/);
    expect(md).toContain('What limits the DynamoDB Local figure');
    expect(md).toMatch(/\*\*[\d.]+ write requests per delivery\*\*/);

    const report = renderReport({
      machine: machine(),
      args: { quick: true, only: ['delivery'], out: '/dev/null' },
      startedAt: new Date(0),
      seconds: 1,
      peakRssMiB: 1,
      outcomes: [{ area: 'delivery', ok: true, seconds: 1, result: r }],
    });
    expect(report).toContain('## Webhook delivery, bus → receiver');
    expect(report).toContain('npm run bench -- --quick --only delivery');
  }, 120_000);

  it('refuses a bad option, naming it', async () => {
    await expect(run({ idleSamples: 0 })).rejects.toMatchObject({ kind: 'InvalidOption' });
    await expect(run({ idleSamples: 0 })).rejects.toThrow(/idleSamples/);
    await expect(run({ stores: [] })).rejects.toThrow(/stores/);
  });
});
