import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { sourceAliases } from '../../vitest.config';

/**
 * Vitest's own order runs the longest (or largest) files first. Stryker runs the files covering a
 * mutant one at a time and stops at the first failing test (bail), so here the order is reversed:
 * a mutant the focused behaviour tests kill costs their milliseconds, not the fuzz suite's seconds.
 */
class ShortestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return (await super.sort(files)).reverse();
  }
}

/**
 * The unit tier: every test that needs neither Java (DynamoDB Local) nor a build (CDK synth,
 * esbuild bundles, the dev server, benchmarks). No global setup, so it starts in seconds; it is
 * the test set Stryker runs against each mutant (test/config/stryker.config.mjs). `npm test` (vitest.config.ts)
 * still runs everything, these included.
 *
 * `isolate: false`: each worker evaluates a module once for all the files it runs instead of once
 * per file (zod schemas, the simulator, the AWS CDK library): measured, it takes 40 % of the tier's
 * CPU time away. It is safe because no unit test mocks a module or patches a global: each builds its
 * own world (stores, simulator, clock) from factories.
 */
export const integrationTests = [
  // DynamoDB Local, through test/support/dynamodb.ts or the handler / polling kill harnesses.
  'test/adapters/dynamodb/**',
  'test/dynamodb-local.test.ts',
  'test/dynamodb-local-lifecycle.test.ts',
  'test/cli/commands.test.ts',
  'test/cli/errors.test.ts',
  'test/delivery/dynamodb.test.ts',
  'test/delivery/recording.test.ts',
  'test/faults/**',
  'test/handlers/**',
  'test/local/demo.test.ts',
  'test/polling/dynamodb.test.ts',
  'test/polling/kill.test.ts',
  'test/queue/consumer.test.ts',
  'test/queue/local-queue.test.ts',
  'test/queue/local-queue-restart.test.ts',
  'test/subscriptions/dynamodb.test.ts',
  // The OpenAPI document through Redocly, openapi-typescript and the TypeScript compiler.
  'test/http/contract-tools.test.ts',
  // CDK synth, bundles, the dev server end to end, benchmarks.
  'test/infra/**',
  'test/e2e/**',
  'test/bench/**',
  // carhook dev, the local runtime or a browser; building and packing @carhook/events.
  'test/examples/webhook-receiver.test.ts',
  'test/examples/cdk-app.test.ts',
  'test/console/console.browser.test.ts',
  'test/cli/manage.test.ts',
  'test/cli/lifecycle.test.ts',
  'test/packages/**',
  // The rehearsal of a deploy: cdk synth, moto, DynamoDB Local, the bundles in Lambda containers.
  'test/rehearsal/rehearse.test.ts',
  'test/rehearsal/example-app.test.ts',
  'test/rehearsal/interrupt.test.ts',
  // The local runtime with its DynamoDB Local: against a "real" API, and the black-box security suite.
  'test/local/real-api.test.ts',
  'test/security/**',
];

export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...integrationTests],
    testTimeout: 20_000,
    pool: 'forks',
    isolate: false,
    sequence: { sequencer: ShortestFirst },
  },
});
