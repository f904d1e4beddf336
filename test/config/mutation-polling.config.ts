import { defineConfig } from 'vitest/config';
import { sourceAliases } from '../../vitest.config';

/**
 * A focused test set for mutation runs of the planner's files (functions/core/polling: rates,
 * selection, planner, memory, reads, naive, jobs): their behaviour tests only, so a mutant costs a
 * second, not the unit tier's pipeline suites. Fewer tests can only kill fewer mutants: a score
 * measured here is a lower bound of the unit tier's (TESTING.md).
 *
 *   STRYKER_VITEST_CONFIG=test/config/mutation-polling.config.ts npm run test:mutation -- \
 *     --mutate functions/core/polling/rates.ts --concurrency 1
 */
export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    include: [
      'test/polling/rates.test.ts',
      'test/polling/selection.test.ts',
      'test/polling/planner.test.ts',
      // The scheduling files the planner reads: its memory, the periodic reads, the naive
      // baseline and the job messages.
      'test/polling/memory.test.ts',
      'test/polling/reads.test.ts',
      'test/polling/naive.test.ts',
      'test/polling/jobs.test.ts',
      // The poll's hint of work left waiting, and the learned follow-up reserve.
      'test/polling/work-waiting.test.ts',
    ],
    testTimeout: 20_000,
    pool: 'forks',
  },
});
