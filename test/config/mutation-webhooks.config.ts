import { defineConfig } from 'vitest/config';
import { sourceAliases } from '../../vitest.config';

/**
 * A focused test set for mutation runs of the SSRF guard (functions/core/webhooks/addresses.ts and
 * ssrf.ts): the webhook tests that classify addresses, compile allow-lists and check URLs, and the
 * sender's tests that connect through the guard. addresses.ts builds its range tables when the
 * module loads, so each of their mutants is "static" and reruns every test of the set: with the
 * unit tier that is 2,000 tests per mutant, here a few hundred. Fewer tests can only kill fewer
 * mutants: a score measured here is a lower bound of the unit tier's (TESTING.md).
 *
 *   STRYKER_VITEST_CONFIG=test/config/mutation-webhooks.config.ts npm run test:mutation -- \
 *     --mutate functions/core/webhooks/addresses.ts --concurrency 2
 */
export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    include: [
      'test/webhooks/addresses.test.ts',
      'test/webhooks/addresses.behaviour.test.ts',
      'test/webhooks/ssrf.behaviour.test.ts',
      'test/webhooks/url-policy.test.ts',
      'test/webhooks/url-policy.behaviour.test.ts',
      'test/webhooks/reserved-ports.test.ts',
      'test/webhooks/sender.test.ts',
    ],
    testTimeout: 20_000,
    pool: 'forks',
  },
});
