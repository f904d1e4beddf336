/**
 * The fault-injection suite at CI size: 30 vehicles, 200 scripted changes, on DynamoDB Local and
 * the simulator, with every fault bench/faults.ts knows injected. The long run (200 vehicles,
 * 2,000 changes) is `npm run bench -- --faults`.
 */
import { describe, expect, it } from 'vitest';
import { CI_SIZE, type FaultReport, runFaultScenario } from '../../bench/faults';
import { localDynamoClient, uniqueTableName } from '../support/dynamodb';

/**
 * One scenario run, shared by the tests that read its report: whichever test runs first starts
 * it, so each test passes or fails on its own whatever the order (or when run alone with -t).
 */
let run: Promise<FaultReport> | undefined;
function scenario(): Promise<FaultReport> {
  run ??= runFaultScenario({
    ...CI_SIZE,
    dynamo: { client: localDynamoClient(), tableName: uniqueTableName('carhook-faults') },
  });
  return run;
}

describe('fault-injection suite (CI size)', () => {
  it('loses nothing and duplicates nothing under 5xx, 429 storms, hung and slow answers, malformed bodies, 404-for-empty, shape drift, stale and flapping answers, killed workers, a receiver outage and a revoked user', async () => {
    const report = await scenario();
    process.stdout.write(
      `\nFault suite, ${CI_SIZE.vehicles} vehicles / ${CI_SIZE.changes} changes\n${report.table}\n`,
    );
    expect(report.violations).toEqual([]);
    const c = report.counts;
    // Every scripted change became exactly one event id, and every id reached the receiver.
    expect(c.changesMade).toBeGreaterThan(CI_SIZE.changes * 0.8);
    expect(c.changesDetected).toBe(c.changesExpected);
    // No alert told fixed while it was not, nor raised again: stale and flapping answers told nothing.
    expect(c.falseEvents).toBe(0);
    expect(c.distinctWebhookIds).toBe(c.distinctEvents);
    expect(c.badSignatures).toBe(0);
    expect(c.maxInWindow).toBeLessThanOrEqual(c.quotaLimit);
    expect(c.reauthorizationEvents).toBe(1);
    expect(c.revokedUserRequestsAfter).toBe(0);
  }, 600_000);

  it('actually injected every fault it claims to survive', async () => {
    const c = (await scenario()).counts;
    expect(c.killed.poll).toBeGreaterThan(0);
    expect(c.killed.fanOut + c.killed.delivery).toBeGreaterThan(0);
    expect(c.serverErrors).toBeGreaterThan(0);
    expect(c.tooManyRequests).toBeGreaterThan(0);
    expect(c.notFound).toBeGreaterThan(0);
    expect(c.timeouts).toBeGreaterThan(0);
    expect(c.malformed).toBeGreaterThan(0);
    expect(c.staleServed).toBeGreaterThan(0);
    expect(c.flapServed).toBeGreaterThan(0);
    expect(c.receiverRefused).toBeGreaterThan(0);
  }, 600_000);
});
