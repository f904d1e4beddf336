import { defineConfig } from 'vitest/config';
import { sourceAliases } from '../../vitest.config';

/**
 * A focused test set for mutation runs of the detection engine's files (functions/core/detection):
 * the files that state its behaviour (exact events, ids, payloads, stored state, rejected inputs)
 * and the two outside test/detection that do so through `diff` and `sequenceMembership`: the
 * fuzzing's regressions and the per-vehicle sequence under racing polls. Left out: the unit tier's
 * pipeline and scheduler suites, which reach `diff` through a simulator and a store and state
 * nothing here does not state more exactly, and the response fuzzing (invariants only: no throw,
 * schema-valid). Fewer tests can only kill fewer mutants: a score measured here is a lower bound
 * of the unit tier's (TESTING.md).
 *
 *   STRYKER_VITEST_CONFIG=test/config/mutation-detection.config.ts npm run test:mutation -- \
 *     --mutate functions/core/detection/diff.ts --concurrency 2
 */
export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    include: [
      'test/detection/**/*.test.ts',
      'test/fuzz/regressions.test.ts',
      'test/polling/sequence.test.ts',
    ],
    testTimeout: 20_000,
    pool: 'forks',
  },
});
