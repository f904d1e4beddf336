import { defineConfig, mergeConfig } from 'vitest/config';
import unit, { integrationTests } from './unit.config';

/**
 * The test set Stryker runs against each mutant: the unit tier without its three long suites
 * (each 5-20 s on 2 cores, mostly starting a simulator or running hundreds of generated inputs).
 * A mutant that survives the focused tests reruns every test covering it; with these suites that
 * is half a minute per survivor, and their hooks outlast Stryker's timeout (a timeout counts as a
 * kill, so it would inflate the score). Fewer tests can only kill fewer mutants: a score measured
 * here is a lower bound of the unit tier's (STRYKER_VITEST_CONFIG=test/config/unit.config.ts for that).
 */
export const longSuites = [
  'test/fuzz/responses.test.ts',
  'test/local/real-api.test.ts',
  'test/polling/strategy.test.ts',
];

export default mergeConfig(
  unit,
  // Isolated as before: Stryker attributes coverage per test and swaps mutants between runs.
  defineConfig({
    test: { isolate: true, exclude: ['**/node_modules/**', ...integrationTests, ...longSuites] },
  }),
);
