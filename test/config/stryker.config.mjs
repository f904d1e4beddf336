// Mutation testing for the pure core (npm run test:mutation; TESTING.md explains the numbers).
//
// No TypeScript checker: Carhook compiles with TypeScript 7's native compiler, which has no
// JavaScript compiler API, and @stryker-mutator/typescript-checker drives that API through
// `require('typescript')`. Giving it TypeScript 5.9 would mean a second `typescript` package under
// an npm alias that the checker does not look up by that name, and a second type-check of the
// project per mutant on a 2-core machine. Without the checker a mutant that would not compile is
// still run: vitest strips types, so it is killed or survives on behaviour like any other.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  // The unit tier (no DynamoDB Local, no synth, no end-to-end, no benchmarks) without its three
  // long suites: see test/config/mutation.config.ts.
  vitest: { configFile: process.env.STRYKER_VITEST_CONFIG ?? 'test/config/mutation.config.ts' },
  // Each mutant runs only the tests that executed its line in the initial run.
  coverageAnalysis: 'perTest',
  checkers: [],
  // Stryker rewrites the sandbox's tsconfig `extends` / `references` paths by parsing it with the
  // `typescript` package's JavaScript API, which TypeScript 7 does not have. Carhook's tsconfig.json
  // has neither field, so the rewrite is skipped by naming no tsconfig here (vitest still reads the
  // real one in the sandbox).
  tsconfigFile: 'no-tsconfig-rewrite.json',
  // The areas with a score goal; a focused run replaces this list with --mutate <file>.
  mutate: [
    'functions/core/detection/**/*.ts',
    '!functions/core/detection/index.ts',
    // The delivery engine: every file of it (contract.ts holds only types, constants and the job schema).
    'functions/core/delivery/{engine,state,fan-out,direct,attempt,recording,operational,jobs}.ts',
    'functions/core/webhooks/signing.ts',
    'functions/core/webhooks/addresses.ts',
    'functions/core/webhooks/ssrf.ts',
    'functions/core/webhooks/url-policy.ts',
  ],
  concurrency: 2,
  // A timed-out mutant counts as killed: on a shared 2-core machine a slow run is not a kill, so
  // the allowance is generous (each mutant's time is 2 × its tests' time in the initial run + 20 s).
  timeoutMS: 20_000,
  timeoutFactor: 2,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 85, low: 80, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
