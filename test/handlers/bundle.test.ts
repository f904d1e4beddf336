/**
 * What each handler's bundle is made of. Sizes and first-invocation times against the baseline are
 * bench/bundles.ts's job (no timed assertions here); test/infra/bundles.test.ts builds the bundles as
 * `cdk synth` does. This one builds each handler with esbuild and the options CarhookFunction uses
 * (lib/bundling.ts), and checks the composition.
 */
import { readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { esbuildOptions } from '../../lib/bundling';

const ROOT = join(import.meta.dirname, '../..');
const HANDLERS_DIR = join(ROOT, 'functions/handlers');
const handlers = readdirSync(HANDLERS_DIR).filter((f) => f.endsWith('.ts'));

const built = new Map<
  string,
  Promise<{ inputs: string[]; imports: Metafile['outputs'][string]['imports'] }>
>();
/** One esbuild per handler (and tracing setting) for the whole file. */
const bundle = (file: string, tracing = true) => {
  let result = built.get(`${file}:${tracing}`);
  if (!result) {
    result = build({
      ...esbuildOptions({ tracing }),
      entryPoints: [join(HANDLERS_DIR, file)],
      write: false,
      outfile: 'index.mjs',
      metafile: true,
      logLevel: 'silent',
    }).then((out) => {
      expect(out.errors).toEqual([]);
      const output = Object.values(out.metafile.outputs).find(
        (o) => o.entryPoint,
      ) as Metafile['outputs'][string];
      // What is in the bundle: the inputs esbuild kept code of (tree-shaken files have 0 bytes).
      const kept = Object.entries(output.inputs).filter(([, i]) => i.bytesInOutput > 0);
      return { inputs: kept.map(([name]) => name), imports: output.imports };
    });
    built.set(`${file}:${tracing}`, result);
  }
  return result;
};

/** `node_modules/<package>/…` of an input, the package named as npm names it (`@scope/name`). */
const packageOf = (input: string): string | undefined => {
  const rest = input.split('node_modules/').at(-1);
  if (rest === undefined || rest === input) return undefined;
  const [first, second] = rest.split('/');
  return first?.startsWith('@') ? `${first}/${second}` : first;
};

/** The distinct node_modules directories a package was bundled from (one = a single copy). */
const copiesOf = (inputs: readonly string[], pkg: string): string[] => [
  ...new Set(
    inputs
      .filter((i) => packageOf(i) === pkg)
      .map((i) => i.slice(0, i.lastIndexOf(`node_modules/${pkg}/`) + `node_modules/${pkg}`.length)),
  ),
];

describe('Lambda bundles (esbuild as CarhookFunction bundles)', () => {
  it('has handlers to bundle', () => {
    expect(handlers).toEqual(
      expect.arrayContaining(['planner.ts', 'poll-worker.ts', 'sweeper.ts', 'http-api.ts']),
    );
  });

  // The console authorizer reads one secret and nothing else: no store.
  const withStore = handlers.filter((f) => f !== 'console-authorizer.ts');

  it.each(withStore)(
    '%s carries the AWS SDK v3 DynamoDB client and document client, bundled in',
    async (file) => {
      const { inputs } = await bundle(file);
      const packages = new Set(inputs.map(packageOf));
      expect(packages).toContain('@aws-sdk/client-dynamodb');
      expect(packages).toContain('@aws-sdk/lib-dynamodb');
    },
  );

  it('console-authorizer.ts carries the Secrets Manager client and no DynamoDB, bus or queue client', async () => {
    const packages = new Set((await bundle('console-authorizer.ts')).inputs.map(packageOf));
    expect(packages).toContain('@aws-sdk/client-secrets-manager');
    for (const pkg of ['@aws-sdk/client-dynamodb', '@aws-sdk/client-eventbridge', '@aws-sdk/client-sqs']) {
      expect(packages, pkg).not.toContain(pkg);
    }
  });

  it.each(handlers)(
    '%s imports only node: built-ins at load: nothing is left to the Lambda runtime',
    async (file) => {
      const { imports } = await bundle(file);
      const external = imports.filter((i) => i.external).map((i) => i.path);
      // Some CommonJS dependencies `require('http')` without the prefix: still a built-in.
      expect(external.filter((path) => !path.startsWith('node:') && !builtinModules.includes(path))).toEqual(
        [],
      );
      expect(external.length).toBeGreaterThan(0);
    },
  );

  it.each(handlers)('%s carries one copy of the SDK core and of Powertools commons', async (file) => {
    const { inputs } = await bundle(file);
    for (const pkg of ['@smithy/core', '@aws-sdk/core', '@aws-lambda-powertools/commons']) {
      expect(copiesOf(inputs, pkg), pkg).toHaveLength(1);
    }
  });

  it.each(handlers)('%s carries no JSON Schema validator: events are checked with zod', async (file) => {
    const { inputs } = await bundle(file);
    expect(inputs.filter((i) => /node_modules\/(ajv|ajv-draft-04|fast-uri)\//.test(i))).toEqual([]);
  });

  it.each(handlers)(
    '%s reads secrets through Powertools Parameters; the SQS consumers answer through Powertools Batch',
    async (file) => {
      const packages = new Set((await bundle(file)).inputs.map(packageOf));
      expect(packages).toContain('@aws-lambda-powertools/parameters');
      if (['poll-worker.ts', 'delivery.ts', 'fanout.ts'].includes(file)) {
        expect(packages).toContain('@aws-lambda-powertools/batch');
      }
    },
  );

  // Powertools Tracer imports the X-Ray SDK, which requires semver and cls-hooked.
  const XRAY = ['@aws-lambda-powertools/tracer', 'aws-xray-sdk-core', 'semver', 'cls-hooked'];

  it.each(handlers)(
    '%s carries the Tracer and the X-Ray SDK when built with tracing (the default)',
    async (file) => {
      const packages = new Set((await bundle(file, true)).inputs.map(packageOf));
      for (const pkg of XRAY) expect(packages, pkg).toContain(pkg);
    },
  );

  it.each(handlers)('%s carries neither when built without tracing', async (file) => {
    const packages = new Set((await bundle(file, false)).inputs.map(packageOf));
    for (const pkg of XRAY) expect(packages, pkg).not.toContain(pkg);
  });

  it.each(handlers)(
    '%s carries the address parser (ipaddr.js) only if its function sends or registers webhooks',
    async (file) => {
      const packages = new Set((await bundle(file)).inputs.map(packageOf));
      const webhooks = ['fanout.ts', 'delivery.ts', 'http-api.ts', 'sweeper.ts'].includes(file);
      expect(packages.has('ipaddr.js')).toBe(webhooks);
    },
  );

  it('planner.ts carries no EventBridge client: it publishes nothing', async () => {
    const { inputs } = await bundle('planner.ts');
    expect(inputs.filter((i) => i.includes('client-eventbridge/dist-es/EventBridgeClient'))).toEqual([]);
    expect(inputs.some((i) => i.includes('client-sqs/dist-es/SQSClient'))).toBe(true);
  });

  it('planner.ts carries no token manager, OAuth client, event catalogue or schema checks: it only plans', async () => {
    const { inputs } = await bundle('planner.ts');
    const pollSide = inputs.filter(
      (i) =>
        i.startsWith('functions/core/tokens/') ||
        i.startsWith('functions/core/events/types/') ||
        ['functions/core/events/catalogue.ts', 'functions/core/events/validate.ts'].includes(i) ||
        packageOf(i) === 'oauth4webapi',
    );
    expect(pollSide).toEqual([]);
    // The poll worker, built the same way, does carry them: the filter above finds what it looks for.
    const worker = (await bundle('poll-worker.ts')).inputs;
    expect(worker).toContain('functions/core/events/catalogue.ts');
    expect(worker.some((i) => packageOf(i) === 'oauth4webapi')).toBe(true);
  });
});
