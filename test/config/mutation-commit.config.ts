import { defineConfig } from 'vitest/config';
import { sourceAliases } from '../../vitest.config';

/**
 * A focused test set for mutation runs of a poll's commit (functions/core/polling/commit.ts:
 * observations → diff → conditional commit → publish, and the scheduling fields a poll writes for
 * the planner): the polling pipeline tests on memory stores, without the long strategy suite, the
 * DynamoDB Local tests and the planner's own tests (which never reach this file). Fewer tests can
 * only kill fewer mutants: a score measured here is a lower bound of the unit tier's (TESTING.md).
 *
 *   STRYKER_VITEST_CONFIG=test/config/mutation-commit.config.ts npm run test:mutation -- \
 *     --mutate functions/core/polling/commit.ts --concurrency 2
 */
export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    include: [
      'test/polling/commit.behaviour.test.ts',
      'test/polling/alert-codes.test.ts',
      'test/polling/cadence.test.ts',
      'test/polling/fleet-removed.test.ts',
      'test/polling/followups.test.ts',
      'test/polling/identity.test.ts',
      'test/polling/pipeline.test.ts',
      'test/polling/resilience.test.ts',
      'test/polling/sequence.test.ts',
      // The hint of work left waiting and where the learned rates start, written with a commit.
      'test/polling/work-waiting.test.ts',
      // A read the budget refused, written by the refused worker and read by the next cycle.
      'test/polling/refused.test.ts',
    ],
    testTimeout: 20_000,
    pool: 'forks',
  },
});
