import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** Tests and examples use @carhook/events from its source; the published build is tested by packing it. */
export const sourceAliases = {
  '@carhook/events': fileURLToPath(new URL('./packages/events/src/index.ts', import.meta.url)),
};

export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    include: ['test/**/*.test.ts'],
    // DynamoDB Local (Java) is started once for the whole run and stopped after.
    globalSetup: ['test/setup/global.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
