/**
 * What each handler's bundle is made of (issue 7). Sizes and import times against the targets are
 * bench/bundles.ts's job (no timed assertions here); test/infra/bundles.test.ts builds the bundles as
 * `cdk synth` does. This one builds each handler with esbuild and the options CarhookFunction uses,
 * and checks the composition the cold start depends on.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { SEMVER_STAND_IN } from '../../lib/constructs/carhook-function';

const ROOT = join(import.meta.dirname, '../..');
const HANDLERS_DIR = join(ROOT, 'functions/handlers');
const handlers = readdirSync(HANDLERS_DIR).filter((f) => f.endsWith('.ts'));

/** lib/constructs/carhook-function.ts: node22, ESM, minified, ESM entry points first, SDK v3 from the runtime. */
const bundle = async (file: string) => {
  const result = await build({
    entryPoints: [join(HANDLERS_DIR, file)],
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    minify: true,
    mainFields: ['module', 'main'],
    external: ['@aws-sdk/*'],
    alias: { semver: join(ROOT, SEMVER_STAND_IN) },
    write: false,
    outfile: 'index.mjs',
    metafile: true,
    logLevel: 'silent',
    banner: { js: "import{createRequire}from'node:module';const require=createRequire(import.meta.url);" },
  });
  expect(result.errors).toEqual([]);
  const output = Object.values(result.metafile.outputs)[0] as Metafile['outputs'][string];
  return { inputs: Object.keys(result.metafile.inputs), imports: output.imports };
};

describe('Lambda bundles (esbuild as CarhookFunction bundles)', () => {
  it('has handlers to bundle', () => {
    expect(handlers).toEqual(
      expect.arrayContaining(['planner.ts', 'poll-worker.ts', 'sweeper.ts', 'http-api.ts']),
    );
  });

  it.each(handlers)('%s carries the 1 KB semver stand-in, not the semver package', async (file) => {
    const { inputs } = await bundle(file);
    expect(inputs.filter((i) => /node_modules\/semver\//.test(i))).toEqual([]);
    expect(inputs).toContain(SEMVER_STAND_IN);
  });

  it.each(handlers)('%s carries no JSON Schema validator: events are checked with zod', async (file) => {
    const { inputs } = await bundle(file);
    expect(inputs.filter((i) => /node_modules\/(ajv|ajv-draft-04|fast-uri)\//.test(i))).toEqual([]);
  });

  it.each(handlers)(
    '%s imports no AWS SDK package at load (DynamoDB through Carhook’s client); EventBridge, SQS and Secrets Manager at first use',
    async (file) => {
      const { inputs, imports } = await bundle(file);
      const sdk = imports.filter((i) => i.path.startsWith('@aws-sdk/'));
      const atLoad = [...new Set(sdk.filter((i) => i.kind === 'import-statement').map((i) => i.path))];
      const atFirstUse = [...new Set(sdk.filter((i) => i.kind === 'dynamic-import').map((i) => i.path))];
      expect(atLoad, `${file} loads ${atLoad.join(', ')}`).toEqual([]);
      expect(atFirstUse).not.toContain('@aws-sdk/client-dynamodb');
      expect(atFirstUse).toEqual(expect.arrayContaining(['@aws-sdk/client-sqs']));
      expect(inputs).toContain('functions/adapters/dynamodb/client.ts');
    },
  );
});
