import { describe, expect, it } from 'vitest';
import { documentClient } from '../../../functions/adapters/dynamodb/index';
import { createDynamoRateBudget } from '../../../functions/adapters/dynamodb/rate-budget';
import {
  capacityOf,
  DEFAULT_RATE_BUDGET,
  type RateBudgetConfig,
} from '../../../functions/core/ratelimit/bucket';
import { rateBudgetContract, T0 } from '../../store/ratelimit/budget-contract';
import { createSimulatedClockTable, localDynamoClient, uniqueTableName } from '../../support/dynamodb';

async function dynamoBudget(config?: RateBudgetConfig) {
  const client = localDynamoClient();
  const tableName = uniqueTableName();
  await createSimulatedClockTable(client, tableName);
  return createDynamoRateBudget({ doc: documentClient(client), tableName }, config);
}

rateBudgetContract('DynamoDB', dynamoBudget);

describe('DynamoDB rate budget under concurrency', () => {
  it('never grants more than the quota in any window to 50 concurrent takers, and grants all of it', async () => {
    const budget = await dynamoBudget();
    const capacity = capacityOf(DEFAULT_RATE_BUDGET);
    const W = DEFAULT_RATE_BUDGET.windowMs;
    const granted = new Map<number, number>();
    // A shared simulated clock moves through 3 windows, 2 steps each; at every step 50 takers
    // race, each trying 2 single takes: 200 attempts per window for 108 tokens.
    for (let window = 0; window < 3; window += 1) {
      for (const offset of [0, 30_000]) {
        const now = T0 + window * W + offset;
        const results = await Promise.all(
          Array.from({ length: 50 }, async () => {
            let mine = 0;
            for (let i = 0; i < 2; i += 1) if ((await budget.tryTake('client-1', 1, now)).granted) mine += 1;
            return mine;
          }),
        );
        granted.set(window, (granted.get(window) ?? 0) + results.reduce((a, b) => a + b, 0));
      }
    }
    expect([...granted.values()]).toEqual([capacity, capacity, capacity]);
  });

  it('keeps the window total within the quota when concurrent takers cross a window boundary with skewed clocks', async () => {
    const budget = await dynamoBudget();
    const capacity = capacityOf(DEFAULT_RATE_BUDGET);
    const W = DEFAULT_RATE_BUDGET.windowMs;
    // Half the takers are still before the boundary, half already after it.
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const now = T0 + W + (i % 2 === 0 ? -500 : 500);
        let mine = 0;
        for (let k = 0; k < 6; k += 1) if ((await budget.tryTake('client-1', 1, now)).granted) mine += 1;
        return mine;
      }),
    );
    const total = outcomes.reduce((a, b) => a + b, 0);
    // At most one full window on each side of the boundary.
    expect(total).toBeLessThanOrEqual(2 * capacity);
    // And once the later window is open nothing more is counted in the earlier one.
    const after = await budget.tryTake('client-1', 1, T0 + W - 1);
    expect(after.granted || after.retryAt === T0 + 2 * W).toBe(true);
  });
});

describe('DynamoDB rate budget corrections', () => {
  it('sends no write for a correction its own takes already cover, and still applies a higher one', async () => {
    const client = localDynamoClient();
    const tableName = uniqueTableName();
    await createSimulatedClockTable(client, tableName);
    const doc = documentClient(client);
    const sent: string[] = [];
    const send = doc.send.bind(doc);
    doc.send = ((command: { constructor: { name: string } }) => {
      sent.push(command.constructor.name);
      return send(command as never);
    }) as typeof doc.send;
    const budget = createDynamoRateBudget({ doc, tableName });
    const limit = DEFAULT_RATE_BUDGET.limit;
    for (let i = 0; i < 3; i += 1) expect((await budget.tryTake('client-1', 1, T0)).granted).toBe(true);
    sent.length = 0;
    // The first response records the quota followed, once for the client: one write.
    await budget.observe('client-1', { limit, remaining: limit - 3, observedAt: T0 + 1 });
    expect(sent).toEqual(['UpdateCommand']);
    sent.length = 0;
    // The server counted what we counted (or less): nothing to correct, nothing sent.
    await budget.observe('client-1', { limit, remaining: limit - 3, observedAt: T0 + 1 });
    await budget.observe('client-1', { limit, remaining: limit - 1, observedAt: T0 + 2 });
    expect(sent).toEqual([]);
    // Another client of the same id used 50 more: the correction is written and takes effect.
    await budget.observe('client-1', { limit, remaining: limit - 53, observedAt: T0 + 3 });
    expect(sent).toEqual(['UpdateCommand']);
    const capacity = capacityOf(DEFAULT_RATE_BUDGET);
    let granted = 0;
    while ((await budget.tryTake('client-1', 1, T0 + 4)).granted) granted += 1;
    expect(granted).toBe(capacity - 53);
  });
});
