/**
 * The fault-injection suite at CI size (issue 9): 30 vehicles, 200 scripted changes, on DynamoDB
 * Local and the simulator, with every fault of the issue injected (bench/faults.ts). The long run
 * (200 vehicles, 2,000 changes) is `npm run bench -- --faults`.
 */
import { describe, expect, it } from 'vitest';
import { CI_SIZE, type FaultReport, runFaultScenario } from '../../bench/faults';
import { localDynamoClient, uniqueTableName } from '../support/dynamodb';

describe('fault-injection suite (CI size)', () => {
  let report: FaultReport;

  it('loses nothing and duplicates nothing under 5xx, 429 storms, hung and slow answers, malformed bodies, 404-for-empty, shape drift, killed workers, a receiver outage and a revoked user', async () => {
    report = await runFaultScenario({
      ...CI_SIZE,
      dynamo: { client: localDynamoClient(), tableName: uniqueTableName('carhook-faults') },
    });
    process.stdout.write(
      `\nFault suite, ${CI_SIZE.vehicles} vehicles / ${CI_SIZE.changes} changes\n${report.table}\n`,
    );
    expect(report.violations).toEqual([]);
    const c = report.counts;
    // Every scripted change became exactly one event id, and every id reached the receiver.
    expect(c.changesMade).toBeGreaterThan(CI_SIZE.changes * 0.8);
    expect(c.changesDetected).toBe(c.changesExpected);
    expect(c.distinctWebhookIds).toBe(c.distinctEvents);
    expect(c.badSignatures).toBe(0);
    expect(c.maxInWindow).toBeLessThanOrEqual(c.quotaLimit);
    expect(c.reauthorizationEvents).toBe(1);
    expect(c.revokedUserRequestsAfter).toBe(0);
  }, 600_000);

  it('actually injected every fault it claims to survive', () => {
    const c = report.counts;
    expect(c.killed.poll).toBeGreaterThan(0);
    expect(c.killed.fanOut + c.killed.delivery).toBeGreaterThan(0);
    expect(c.serverErrors).toBeGreaterThan(0);
    expect(c.tooManyRequests).toBeGreaterThan(0);
    expect(c.notFound).toBeGreaterThan(0);
    expect(c.timeouts).toBeGreaterThan(0);
    expect(c.malformed).toBeGreaterThan(0);
    expect(c.receiverRefused).toBeGreaterThan(0);
  });
});
