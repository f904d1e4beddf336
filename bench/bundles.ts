/**
 * Lambda bundle benchmark (issue 7): synthesizes the ready CDK app (the very esbuild bundling
 * `cdk synth` runs: minified, tree-shaken ESM, `@aws-sdk/*` left to the Lambda runtime), then for
 * each function records the minified bundle's size and its cold import time on Node 22: a fresh
 * `node` process imports the bundle (with `--enable-source-maps`, as the functions run) and reports
 * how long the `import()` took; the median of a few runs is kept.
 *
 * A bundle may leave some `@aws-sdk/*` packages to a dynamic `import()` at their first use (the
 * EventBridge, SQS and Secrets Manager clients: functions/runtime/aws.ts). That moves their load out
 * of the import into the first invocation that calls the service, so the same process then imports
 * those packages too and the bench reports both: the import alone (issue 7's figure) and the import
 * plus every deferred package (what a first invocation calling every service pays), so the move
 * never passes for a saving.
 *
 *   npx tsx bench/bundles.ts [--runs 5] [--bundle-sdk]   (prints the markdown section)
 *   import { run, markdown } from './bundles'
 *
 * Targets (issue 7): every bundle < 500 KB minified, every cold import < 150 ms.
 */
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { App } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { buildCarhookApp, readAppSettings } from '../lib/app';
import { REPO_ROOT } from '../lib/paths';

export const BUNDLE_TARGETS = { maxBytes: 500_000, maxImportMs: 150 } as const;

export interface BundleInfo {
  /** Function id in the Carhook construct (`Planner`, `PollWorker`…). */
  readonly id: string;
  /** Handler module, relative to the repository root. */
  readonly entry: string;
  /** The bundle CDK uploads (`index.mjs` in the asset directory). */
  readonly file: string;
  readonly bytes: number;
}

export class BundleBenchError extends Error {
  override readonly name = 'BundleBenchError';
  readonly kind = 'BundleMissing' as const;
  constructor(
    readonly functionId: string,
    message: string,
  ) {
    super(`${functionId}: ${message}`);
  }
}

/**
 * Synthesizes the ready app (bin/app.ts's stacks, cdk.json's feature flags) into `outdir` and returns
 * every function's bundle. Throws if a function has no bundled `index.mjs` (the build failed).
 */
export function synthesizeBundles(
  options: { readonly outdir?: string; readonly bundleAwsSdk?: boolean } = {},
): BundleInfo[] {
  const outdir = options.outdir ?? mkdtempSync(join(tmpdir(), 'carhook-bundles-'));
  const cdkJson = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  const context: Record<string, unknown> = {
    apiBaseUrl: 'https://api.example.net',
    authUrl: 'https://id.example.net',
    brands: 'cielo,pavo',
    bundleAwsSdk: options.bundleAwsSdk === true,
  };
  const app = new App({ context: cdkJson.context, outdir });
  const { stack } = buildCarhookApp(
    app,
    readAppSettings((key) => context[key]),
    { account: '111111111111', region: 'eu-west-1' },
  );
  const assembly = app.synth();
  const template = assembly.getStackByName(stack.stackName).template as {
    Resources: Record<string, { Properties?: { Code?: { S3Key?: unknown } } }>;
  };
  const bundles: BundleInfo[] = [];
  for (const [id, fn] of stack.carhook.functions) {
    const logicalId = stack.getLogicalId(fn.node.defaultChild as CfnFunction);
    const key = template.Resources[logicalId]?.Properties?.Code?.S3Key;
    if (typeof key !== 'string' || !key.endsWith('.zip')) {
      throw new BundleBenchError(id, `no asset S3Key in the template (got ${JSON.stringify(key)})`);
    }
    const file = join(outdir, `asset.${key.slice(0, -'.zip'.length)}`, 'index.mjs');
    if (!existsSync(file)) throw new BundleBenchError(id, `the asset has no index.mjs (${file})`);
    bundles.push({ id, entry: relative(REPO_ROOT, fn.entryPath), file, bytes: statSync(file).size });
  }
  return bundles;
}

export interface ImportTiming {
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  readonly samples: readonly number[];
}

export interface BundleTiming {
  /** `await import()` of the bundle. */
  readonly import: ImportTiming;
  /**
   * CPU time of that import (user + system, all threads: V8 compiles and collects in the background).
   * Other processes move it far less than wall time, so it compares runs on a busy machine better.
   */
  readonly importCpu: ImportTiming;
  /** The import, then in the same process the `@aws-sdk/*` packages the bundle loads at first use. */
  readonly withDeferred: ImportTiming;
  /** CPU time of that import and those packages. */
  readonly withDeferredCpu: ImportTiming;
  /** Those packages (`import("@aws-sdk/…")` in the bundle), in the order imported. */
  readonly deferred: readonly string[];
}

/** The `@aws-sdk/*` packages a bundle imports dynamically (at first use) rather than statically. */
export function deferredSdkImports(code: string): string[] {
  const specs = [...code.matchAll(/\bimport\(\s*["'](@aws-sdk\/[^"']+)["']\s*\)/g)].map((m) => m[1] ?? '');
  return [...new Set(specs)].sort();
}

export interface BundleBenchResult {
  readonly node: string;
  readonly runs: number;
  /** The AWS SDK bundled in (`-c bundleAwsSdk=true`) rather than left to the runtime. */
  readonly bundleAwsSdk: boolean;
  readonly bundles: ReadonlyArray<BundleInfo & BundleTiming>;
}

/** Node 22 as the project pins it (npm `node` package), else the one running this script. */
function node22(): string {
  const pinned = join(REPO_ROOT, 'node_modules/node/bin/node');
  return existsSync(pinned) ? pinned : process.execPath;
}

// argv[1]: the bundle; argv[2…]: its deferred SDK packages (resolved from the sandbox's node_modules).
const IMPORT_SCRIPT = [
  'const c0 = process.cpuUsage();',
  'const t0 = performance.now();',
  'await import(process.argv[1]);',
  'const t1 = performance.now();',
  'const cpu = process.cpuUsage(c0);',
  'for (const spec of process.argv.slice(2)) await import(spec);',
  'const all = process.cpuUsage(c0);',
  'process.stdout.write(JSON.stringify([t1 - t0, (cpu.user + cpu.system) / 1000, performance.now() - t0, (all.user + all.system) / 1000]));',
].join(' ');

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

function timing(samples: readonly number[]): ImportTiming {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    medianMs: round(sorted[Math.floor(sorted.length / 2)] ?? Number.NaN),
    minMs: round(sorted[0] ?? Number.NaN),
    maxMs: round(sorted[sorted.length - 1] ?? Number.NaN),
    samples: samples.map((s) => round(s)),
  };
}

/** Times `runs` cold imports of each bundle, each in a fresh process. */
export function run(
  options: { readonly runs?: number; readonly outdir?: string; readonly bundleAwsSdk?: boolean } = {},
): BundleBenchResult {
  const runs = options.runs ?? 5;
  if (!Number.isInteger(runs) || runs < 1 || runs > 50) {
    throw new RangeError(`runs: must be a whole number from 1 to 50, got ${runs}`);
  }
  const nodeBin = node22();
  const bundleAwsSdk = options.bundleAwsSdk === true;
  const bundles = synthesizeBundles({ ...(options.outdir ? { outdir: options.outdir } : {}), bundleAwsSdk });
  // Outside the repository, with node_modules linked in: the bundle's externals (`@aws-sdk/*`, which
  // the Lambda runtime provides) resolve, nothing else of the source tree does.
  const sandbox = mkdtempSync(join(tmpdir(), 'carhook-import-'));
  try {
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(sandbox, 'node_modules'), 'dir');
    const timed = bundles.map((bundle) => {
      const dir = join(sandbox, bundle.id);
      mkdirSync(dir);
      copyFileSync(bundle.file, join(dir, 'index.mjs'));
      if (existsSync(`${bundle.file}.map`)) copyFileSync(`${bundle.file}.map`, join(dir, 'index.mjs.map'));
      const url = pathToFileURL(join(dir, 'index.mjs')).href;
      const deferred = deferredSdkImports(readFileSync(bundle.file, 'utf8'));
      const imports: number[] = [];
      const cpu: number[] = [];
      const withDeferred: number[] = [];
      const withDeferredCpu: number[] = [];
      for (let i = 0; i < runs; i++) {
        const out = execFileSync(
          nodeBin,
          ['--enable-source-maps', '--input-type=module', '-e', IMPORT_SCRIPT, url, ...deferred],
          { cwd: dir, env: { PATH: process.env.PATH ?? '', AWS_REGION: 'eu-west-1' }, encoding: 'utf8' },
        );
        const [alone, cpuMs, all, allCpuMs] = JSON.parse(out) as [number, number, number, number];
        imports.push(alone);
        cpu.push(cpuMs);
        withDeferred.push(all);
        withDeferredCpu.push(allCpuMs);
      }
      return {
        ...bundle,
        import: timing(imports),
        importCpu: timing(cpu),
        withDeferred: timing(withDeferred),
        withDeferredCpu: timing(withDeferredCpu),
        deferred,
      };
    });
    const version = execFileSync(nodeBin, ['-v'], { encoding: 'utf8' }).trim();
    return { node: version, runs, bundleAwsSdk, bundles: timed };
  } finally {
    rmSync(sandbox, { recursive: true, force: true });
  }
}

const met = (ok: boolean) => (ok ? 'met' : '**not met**');

export function markdown(result: BundleBenchResult): string {
  const kb = (bytes: number) => `${round(bytes / 1000)} KB`;
  const rows = result.bundles.map(
    (b) =>
      `| ${b.id} | \`${b.entry}\` | ${kb(b.bytes)} | ${b.import.medianMs} ms | ${b.import.minMs}–${b.import.maxMs} ms | ${b.importCpu.medianMs} ms | ${b.deferred.length === 0 ? '(none deferred)' : `${b.withDeferred.medianMs} ms (min ${b.withDeferred.minMs}), CPU ${b.withDeferredCpu.medianMs} ms`} | ${met(b.bytes < BUNDLE_TARGETS.maxBytes)} / ${met(b.import.medianMs < BUNDLE_TARGETS.maxImportMs)} |`,
  );
  const deferred = [...new Set(result.bundles.flatMap((b) => b.deferred))].sort();
  return [
    `## Lambda bundles (issue 7)${result.bundleAwsSdk ? ', AWS SDK bundled in' : ''}`,
    '',
    `Bundles as \`cdk synth\` builds them (esbuild: ESM, minified, tree-shaken, ${result.bundleAwsSdk ? 'the AWS SDK bundled in (`-c bundleAwsSdk=true`)' : '`@aws-sdk/*` left to the Lambda runtime'}); cold import = \`await import()\` of the bundle in a fresh \`node --enable-source-maps\` process (${result.node}), median of ${result.runs} runs; import CPU = user + system time of that import (all threads), which other load on the machine moves far less than wall time.`,
    '',
    '| function | handler | minified size | cold import (median) | min–max | import CPU (median) | import + deferred SDK (median) | targets (size / import) |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    deferred.length === 0
      ? 'No `@aws-sdk/*` package is deferred: the import includes every SDK package the function loads.'
      : `Deferred to first use (\`import()\` when the function first calls the service, so not in the cold import): ${deferred.map((d) => `\`${d}\``).join(', ')}. "import + deferred SDK" imports them right after the bundle in the same process: what an invocation calling every one of those services adds to a cold start.`,
    '',
    `Targets (issue 7): every bundle < ${BUNDLE_TARGETS.maxBytes / 1000} KB minified, every import < ${BUNDLE_TARGETS.maxImportMs} ms.`,
    '',
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const { values } = parseArgs({
      options: { runs: { type: 'string' }, 'bundle-sdk': { type: 'boolean' } },
      strict: true,
    });
    const result = run({
      ...(values.runs === undefined ? {} : { runs: Number(values.runs) }),
      bundleAwsSdk: values['bundle-sdk'] === true,
    });
    console.log(markdown(result));
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  }
}
