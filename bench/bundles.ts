/**
 * Lambda cold start as it is felt. For each function bundle, as `cdk synth` builds it (esbuild,
 * minified ESM, the AWS SDK bundled in): its size, and the time from a fresh `node` process to the
 * end of its first invocation (import, handler init, the invocation's real AWS calls: DynamoDB on
 * DynamoDB Local, EventBridge / SQS / Secrets Manager on a stub on 127.0.0.1 reached through
 * `AWS_ENDPOINT_URL_<SERVICE>`, fake static credentials from the environment), median of `runs`
 * fresh processes. Beside them, a baseline built with the same esbuild options: a minimal handler
 * making one DynamoDB GetItem and one PutEvents with bare SDK clients (support/baseline-handler.ts).
 *
 * Each function gets the event it gets in production, the smallest that makes it work: the
 * scheduler's for the planner and the sweeper (one unpublished event seeded, so the sweep publishes
 * it: Query + PutEvents + UpdateItem), `GET /health` for the HTTP API (Query + GetSecretValue), a
 * poll job / delivery job / bus event for the consumers. The table reports the calls each first
 * invocation made (counted by the stub, which also forwards DynamoDB's to DynamoDB Local).
 *
 * Goals: every bundle ≤ 1.3 × the baseline's first-invocation time and ≤ 1.5 × its size. When a
 * bundle misses one, the section shows where its bytes come from (esbuild metafile, by package)
 * and where its time goes (`--cpu-prof` of one more process, self time by source package through
 * the bundle's source map).
 *
 *   npx tsx bench/bundles.ts [--runs 10]   (prints the markdown section)
 *   import { run, markdown } from './bundles'
 */
import { execFile, execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { SourceMap, type SourceMapPayload } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { App } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { build } from 'esbuild';
import { createDynamoStores, createTable } from '../functions/adapters/dynamodb';
import { dynamoDbLocalClient, startDynamoDbLocal } from '../functions/adapters/local/dynamodb-local';
import type { EventEnvelope } from '../functions/core/events/envelope';
import { buildCarhookApp, readAppSettings } from '../lib/app';
import { esbuildOptions } from '../lib/bundling';
import { REPO_ROOT } from '../lib/paths';

export const BUNDLE_GOALS = { maxTimeRatio: 1.3, maxSizeRatio: 1.5 } as const;

export const BASELINE_ID = 'Baseline';

export interface BundleInfo {
  /** Function id in the Carhook construct (`Planner`, `PollWorker`…), or `Baseline`. */
  readonly id: string;
  /** Handler module, relative to the repository root. */
  readonly entry: string;
  /** The bundle (`index.mjs`, with `index.mjs.map` beside it). */
  readonly file: string;
  readonly bytes: number;
}

export class BundleBenchError extends Error {
  override readonly name = 'BundleBenchError';
  constructor(
    readonly functionId: string,
    readonly kind: 'BundleMissing' | 'InvocationFailed',
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
  options: { readonly outdir?: string; readonly tracing?: boolean } = {},
): BundleInfo[] {
  const outdir = options.outdir ?? mkdtempSync(join(tmpdir(), 'carhook-bundles-'));
  const cdkJson = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  const context: Record<string, unknown> = {
    apiBaseUrl: 'https://api.example.net',
    authUrl: 'https://id.example.net',
    brands: 'cielo,pavo',
    ...(options.tracing === false ? { tracing: 'false' } : {}),
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
      throw new BundleBenchError(
        id,
        'BundleMissing',
        `no asset S3Key in the template (got ${JSON.stringify(key)})`,
      );
    }
    const file = join(outdir, `asset.${key.slice(0, -'.zip'.length)}`, 'index.mjs');
    if (!existsSync(file))
      throw new BundleBenchError(id, 'BundleMissing', `the asset has no index.mjs (${file})`);
    bundles.push({ id, entry: relative(REPO_ROOT, fn.entryPath), file, bytes: statSync(file).size });
  }
  return bundles;
}

const BASELINE_ENTRY = 'bench/support/baseline-handler.ts';

/** The baseline handler, bundled with the options every Carhook function is bundled with. */
export async function buildBaseline(outdir: string): Promise<BundleInfo> {
  const file = join(outdir, 'index.mjs');
  await build({
    ...esbuildOptions(),
    entryPoints: [join(REPO_ROOT, BASELINE_ENTRY)],
    outfile: file,
    logLevel: 'silent',
  });
  return { id: BASELINE_ID, entry: BASELINE_ENTRY, file, bytes: statSync(file).size };
}

export interface Timing {
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  readonly samples: readonly number[];
}

export interface BundleResult extends BundleInfo {
  /** Fresh process start → the end of the first invocation. */
  readonly firstInvocation: Timing;
  /** Fresh process start → the bundle imported (part of the above). */
  readonly imported: Timing;
  /** CPU (user + system, all threads) of the whole process up to the end of the first invocation. */
  readonly cpu: Timing;
  /** The AWS calls the first invocation made (`DynamoDB.GetItem`, `EventBridge.PutEvents`…). */
  readonly calls: readonly string[];
  readonly timeRatio: number;
  readonly sizeRatio: number;
  /** CPU ÷ the baseline's: steadier than wall time on a loaded machine. */
  readonly cpuRatio: number;
  /** Filled when a goal is missed: where the bytes and the time go. */
  readonly breakdown?: {
    readonly bytesByPackage: readonly [string, number][];
    readonly cpuByPackage: readonly [string, number][];
  };
}

/** The same functions built another way (without tracing, or from another revision), measured in the same run. */
export interface BundleVariant {
  readonly label: string;
  readonly bundles: readonly Omit<BundleResult, 'breakdown'>[];
}

export interface BundleBenchResult {
  readonly node: string;
  readonly runs: number;
  readonly baseline: BundleResult;
  readonly bundles: readonly BundleResult[];
  readonly variants: readonly BundleVariant[];
}

/**
 * The bundles of another revision (`ref`: a commit or tag), as its own code synthesized them: a
 * detached git worktree, its own `npm ci`, its own `synthesizeBundles`. Removed afterwards.
 */
export function bundlesOfRevision(ref: string, outdir: string): BundleInfo[] {
  const tree = mkdtempSync(join(tmpdir(), 'carhook-revision-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO_ROOT, stdio: 'pipe' });
  git('worktree', 'add', '--detach', tree, ref);
  try {
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: tree, stdio: 'pipe' });
    // An ES module file: bench/bundles.ts has top-level await, which an --eval script (CommonJS) cannot import.
    const script = join(tree, 'synthesize-bundles.mts');
    writeFileSync(
      script,
      `import { synthesizeBundles } from './bench/bundles.ts';\nprocess.stdout.write('@@' + JSON.stringify(synthesizeBundles({ outdir: ${JSON.stringify(outdir)} })));\n`,
    );
    const out = execFileSync(join(tree, 'node_modules/.bin/tsx'), [script], {
      cwd: tree,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const bundles = JSON.parse(out.slice(out.lastIndexOf('@@') + 2)) as BundleInfo[];
    return bundles.map((b) => ({ ...b, entry: `${b.entry} @ ${ref}` }));
  } finally {
    git('worktree', 'remove', '--force', tree);
  }
}

/** Node 22 as the project pins it (npm `node` package), else the one running this script. */
function node22(): string {
  const pinned = join(REPO_ROOT, 'node_modules/node/bin/node');
  return existsSync(pinned) ? pinned : process.execPath;
}

const execFileAsync = promisify(execFile);

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

function timing(samples: readonly number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    medianMs: round(sorted[Math.floor(sorted.length / 2)] ?? Number.NaN),
    minMs: round(sorted[0] ?? Number.NaN),
    maxMs: round(sorted[sorted.length - 1] ?? Number.NaN),
    samples: samples.map((s) => round(s)),
  };
}

// A fresh process: `performance.now()` counts from the process's time origin (its start).
// argv[1]: the bundle; argv[2]: the event (JSON). The result line is marked: the handler logs too.
const DRIVER = [
  'const { handler } = await import(process.argv[1]);',
  'const imported = performance.now();',
  "const context = { functionName: 'bench', functionVersion: '$LATEST', invokedFunctionArn: 'arn:aws:lambda:eu-west-1:111111111111:function:bench', memoryLimitInMB: '512', awsRequestId: 'r-1', logGroupName: '/aws/lambda/bench', logStreamName: 's', callbackWaitsForEmptyEventLoop: false, getRemainingTimeInMillis: () => 30000, done() {}, fail() {}, succeed() {} };",
  'let error;',
  'try { await handler(JSON.parse(process.argv[2]), context); } catch (e) { error = String(e && e.stack || e); }',
  'const done = performance.now();',
  'const cpu = process.cpuUsage();',
  "process.stdout.write('\\n@@bench ' + JSON.stringify({ imported, done, cpuMs: (cpu.user + cpu.system) / 1000, error }) + '\\n');",
  'process.exit(0);',
].join(' ');

/** The stub AWS endpoint: EventBridge, SQS and Secrets Manager answered here, DynamoDB forwarded to DynamoDB Local. */
interface Stub {
  readonly endpoint: string;
  readonly calls: string[];
  close(): Promise<void>;
}

const SECRET_VALUES: Record<string, string> = {
  'arn:aws:secretsmanager:eu-west-1:111111111111:secret:bench/api-client': JSON.stringify({
    clientId: 'bench',
    clientSecret: 'bench',
  }),
  'arn:aws:secretsmanager:eu-west-1:111111111111:secret:bench/token-keys': JSON.stringify({
    current: 'k1',
    k1: Buffer.alloc(32, 7).toString('base64'),
  }),
  'arn:aws:secretsmanager:eu-west-1:111111111111:secret:bench/map': JSON.stringify({
    username: '',
    password: '',
  }),
};

const readBody = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

async function startStub(dynamoEndpoint: string): Promise<Stub> {
  const calls: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    const target = String(req.headers['x-amz-target'] ?? '');
    const [service = '', operation = ''] = target.split('.');
    const reply = (json: unknown) => {
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(json));
    };
    if (service.startsWith('DynamoDB')) {
      calls.push(`DynamoDB.${operation}`);
      // Forwarded as is: DynamoDB Local does not check signatures.
      const answer = await fetch(`${dynamoEndpoint}/`, {
        method: 'POST',
        headers: {
          'content-type': String(req.headers['content-type'] ?? 'application/x-amz-json-1.0'),
          'x-amz-target': target,
          authorization: String(req.headers.authorization ?? ''),
          'x-amz-date': String(req.headers['x-amz-date'] ?? ''),
        },
        body,
      });
      res.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'application/x-amz-json-1.0',
      });
      res.end(Buffer.from(await answer.arrayBuffer()));
      return;
    }
    const input = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
    if (target === 'AWSEvents.PutEvents') {
      calls.push('EventBridge.PutEvents');
      const entries = (input.Entries as unknown[] | undefined) ?? [];
      return reply({
        FailedEntryCount: 0,
        Entries: entries.map((_, i) => ({ EventId: `eb-${calls.length}-${i}` })),
      });
    }
    if (service === 'AmazonSQS') {
      calls.push(`SQS.${operation}`);
      const entries = (input.Entries as { Id: string }[] | undefined) ?? [];
      return reply(
        operation === 'SendMessageBatch'
          ? {
              Successful: entries.map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}`, MD5OfMessageBody: '' })),
              Failed: [],
            }
          : {},
      );
    }
    if (target === 'secretsmanager.GetSecretValue') {
      calls.push('SecretsManager.GetSecretValue');
      const id = String(input.SecretId);
      return reply({ ARN: id, Name: id, SecretString: SECRET_VALUES[id] ?? '' });
    }
    calls.push(`unknown:${target}`);
    res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' });
    res.end(JSON.stringify({ __type: 'UnknownOperationException', message: target }));
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const TABLE = 'carhook-bench-bundles';
const QUEUE = (name: string) => `http://127.0.0.1/111111111111/${name}`;

/** What every process gets: Lambda's variables (region, keys) and every Carhook binding. */
function environment(stub: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIDBENCH',
    AWS_SECRET_ACCESS_KEY: 'bench-secret',
    AWS_ENDPOINT_URL_DYNAMODB: stub,
    AWS_ENDPOINT_URL_EVENTBRIDGE: stub,
    AWS_ENDPOINT_URL_SQS: stub,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: stub,
    // Lambda's log level for Carhook functions; the output is not read.
    POWERTOOLS_LOG_LEVEL: 'WARN',
    POWERTOOLS_METRICS_NAMESPACE: 'Carhook',
    POWERTOOLS_SERVICE_NAME: 'carhook',
    CARHOOK_TABLE_NAME: TABLE,
    CARHOOK_EVENT_BUS_NAME: 'carhook-bench',
    CARHOOK_EVENT_SOURCE: 'carhook',
    CARHOOK_API_BASE_URL: 'https://api.example.net',
    CARHOOK_AUTH_URL: 'https://id.example.net',
    CARHOOK_BRANDS: 'cielo,pavo',
    CARHOOK_API_CLIENT_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:bench/api-client',
    CARHOOK_TOKEN_KEY_RING_SECRET_ARN:
      'arn:aws:secretsmanager:eu-west-1:111111111111:secret:bench/token-keys',
    CARHOOK_MAP_API_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:bench/map',
    CARHOOK_POLL_QUEUE_URL: QUEUE('carhook-poll-jobs'),
    CARHOOK_DELIVERY_QUEUE_URL: QUEUE('carhook-deliveries'),
  };
}

const ENVELOPE = (id: string): EventEnvelope =>
  ({
    id,
    type: 'enrollment.vehicle.removed',
    schemaVersion: 1,
    occurredAt: '2026-11-22T09:59:00.000Z',
    detectedAt: '2026-11-22T10:00:00.000Z',
    sequence: 1,
    enrollment: { id: 'enr-bench', kind: 'oauth-user' },
    source: { api: 'v2', operation: 'GET /vehicles', recordId: 'veh-bench' },
    data: { vehicleId: 'veh-bench', vin: 'VF3ABCDEF12345678' },
  }) as unknown as EventEnvelope;

const sqsEvent = (body: unknown, queue: string) => ({
  Records: [
    {
      messageId: 'm-1',
      receiptHandle: 'rh-1',
      body: JSON.stringify(body),
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: '0',
        SenderId: 'bench',
        ApproximateFirstReceiveTimestamp: '0',
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:eu-west-1:111111111111:${queue}`,
      awsRegion: 'eu-west-1',
    },
  ],
});

const scheduled = {
  version: '0',
  id: 'bench',
  'detail-type': 'Scheduled Event',
  source: 'aws.scheduler',
  account: '111111111111',
  time: '2026-11-22T10:00:00Z',
  region: 'eu-west-1',
  resources: [],
  detail: {},
};

/** The production event of each function, the smallest that makes it do its work. */
const EVENTS: Record<string, unknown> = {
  [BASELINE_ID]: {},
  Planner: scheduled,
  Sweeper: scheduled,
  PollWorker: sqsEvent(
    {
      kind: 'poll-vehicle',
      vehicleId: 'veh-bench',
      resources: ['alerts'],
      strategy: 'carhook',
      plannedAt: '2026-11-22T10:00:00.000Z',
    },
    'carhook-poll-jobs',
  ),
  FanOut: {
    version: '0',
    id: 'eb-1',
    'detail-type': 'enrollment.vehicle.removed',
    source: 'carhook',
    account: '111111111111',
    time: '2026-11-22T10:00:00Z',
    region: 'eu-west-1',
    resources: [],
    detail: ENVELOPE('evt_bench_fanout'),
  },
  Delivery: sqsEvent({ deliveryId: 'dlv_bench' }, 'carhook-deliveries'),
  HttpApi: {
    version: '2.0',
    routeKey: '$default',
    rawPath: '/health',
    rawQueryString: '',
    headers: { host: 'bench.execute-api.eu-west-1.amazonaws.com' },
    requestContext: {
      accountId: '111111111111',
      apiId: 'bench',
      domainName: 'bench.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'bench',
      http: {
        method: 'GET',
        path: '/health',
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'bench',
      },
      requestId: 'r-1',
      routeKey: '$default',
      stage: '$default',
      time: '22/Nov/2026:10:00:00 +0000',
      timeEpoch: 0,
    },
    isBase64Encoded: false,
  },
};

/** Bytes of the bundle's output by source package (esbuild metafile of the same build). */
async function bytesByPackage(entry: string): Promise<[string, number][]> {
  const out = await build({
    ...esbuildOptions(),
    entryPoints: [join(REPO_ROOT, entry)],
    write: false,
    outfile: 'index.mjs',
    metafile: true,
    logLevel: 'silent',
  });
  const output = Object.values(out.metafile.outputs).find((o) => o.entryPoint);
  const sums = new Map<string, number>();
  for (const [path, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
    const pkg = packageOf(path);
    sums.set(pkg, (sums.get(pkg) ?? 0) + bytesInOutput);
  }
  return [...sums].sort((a, b) => b[1] - a[1]).slice(0, 8);
}

function packageOf(path: string): string {
  const rest = path.split('node_modules/').at(-1) ?? path;
  if (rest === path) return /(^|\/)(functions|bench|lib)\//.test(path) ? 'carhook (our code)' : path;
  const [first, second] = rest.split('/');
  return first?.startsWith('@') ? `${first}/${second}` : (first ?? path);
}

interface CpuProfile {
  readonly nodes: {
    id: number;
    callFrame: { url: string; lineNumber: number; columnNumber: number; functionName: string };
  }[];
  readonly samples: number[];
  readonly timeDeltas: number[];
}

/** Self CPU time of one first invocation by source package, read through the bundle's source map. */
async function cpuByPackage(
  invoke: (extraArgs: string[]) => Promise<unknown>,
  dir: string,
): Promise<[string, number][]> {
  const profDir = join(dir, 'prof');
  mkdirSync(profDir, { recursive: true });
  await invoke(['--cpu-prof', `--cpu-prof-dir=${profDir}`]);
  const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) return [];
  const profile = JSON.parse(readFileSync(join(profDir, file), 'utf8')) as CpuProfile;
  const map = new SourceMap(JSON.parse(readFileSync(join(dir, 'index.mjs.map'), 'utf8')) as SourceMapPayload);
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const sums = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = byNode.get(id)?.callFrame;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    let label = frame?.functionName ? `(${frame.functionName})` : '(program)';
    if (frame?.url.endsWith('index.mjs')) {
      const entry = map.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string };
      label = entry.originalSource ? packageOf(entry.originalSource.replace(/^(\.\.\/)+/, '')) : 'index.mjs';
    } else if (frame?.url.startsWith('node:')) {
      label = frame.url;
    }
    sums.set(label, (sums.get(label) ?? 0) + ms);
  });
  return [...sums]
    .map(([k, v]) => [k, round(v)] as [string, number])
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8);
}

/** Times `runs` first invocations of each bundle and of the baseline, each in a fresh process. */
export async function run(
  options: {
    readonly runs?: number;
    readonly outdir?: string;
    /** Revisions to measure beside this one (the steps' "before"). */
    readonly refs?: readonly string[];
  } = {},
): Promise<BundleBenchResult> {
  const runs = options.runs ?? 10;
  if (!Number.isInteger(runs) || runs < 1 || runs > 50) {
    throw new RangeError(`runs: must be a whole number from 1 to 50, got ${runs}`);
  }
  const nodeBin = node22();
  const outdir = options.outdir ?? mkdtempSync(join(tmpdir(), 'carhook-bundles-'));
  const bundles = synthesizeBundles({ outdir: join(outdir, 'cdk') });
  // Built before anything is measured, so every measurement runs on the same quiet stretch.
  const variantBundles: { label: string; bundles: BundleInfo[] }[] = [
    ...(options.refs ?? []).map((ref, i) => ({
      label: `revision ${ref}`,
      bundles: bundlesOfRevision(ref, join(outdir, `ref-${i}`)),
    })),
    {
      label: 'this revision, tracing: false',
      bundles: synthesizeBundles({ outdir: join(outdir, 'cdk-untraced'), tracing: false }),
    },
  ];
  mkdirSync(join(outdir, 'baseline'), { recursive: true });
  const baseline = await buildBaseline(join(outdir, 'baseline'));
  const dynamo = await startDynamoDbLocal();
  const client = dynamoDbLocalClient(dynamo.endpoint);
  const stub = await startStub(dynamo.endpoint);
  // Outside the repository: the bundle must not resolve anything from the source tree.
  const sandbox = mkdtempSync(join(tmpdir(), 'carhook-invoke-'));
  try {
    await createTable(client, TABLE, { timeToLive: false });
    const { events } = createDynamoStores({ client, tableName: TABLE });
    const env = environment(stub.endpoint);
    type Measured = Omit<BundleResult, 'timeRatio' | 'sizeRatio' | 'cpuRatio'>;
    /** The timings of `bundle`, and `profile` for one more, profiled, first invocation. */
    const measure = async (
      bundle: BundleInfo,
      variant = '',
    ): Promise<{ measured: Measured; profile: () => Promise<[string, number][]> }> => {
      const dir = join(sandbox, `${variant.replace(/[^A-Za-z0-9]+/g, '-')}${bundle.id}`);
      mkdirSync(dir);
      copyFileSync(bundle.file, join(dir, 'index.mjs'));
      if (existsSync(`${bundle.file}.map`)) copyFileSync(`${bundle.file}.map`, join(dir, 'index.mjs.map'));
      const url = pathToFileURL(join(dir, 'index.mjs')).href;
      const event = JSON.stringify(EVENTS[bundle.id] ?? {});
      // Asynchronous: the stub answering the child's calls runs in this process's event loop.
      const invokeOnce = async (extraArgs: string[] = []) => {
        const { stdout } = await execFileAsync(
          nodeBin,
          ['--enable-source-maps', ...extraArgs, '--input-type=module', '-e', DRIVER, url, event],
          { cwd: dir, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 60_000 },
        );
        const line = stdout.split('\n').find((l) => l.startsWith('@@bench '));
        const result = JSON.parse(line?.slice('@@bench '.length) ?? '{}') as {
          imported: number;
          done: number;
          cpuMs: number;
          error?: string;
        };
        if (result.error) throw new BundleBenchError(bundle.id, 'InvocationFailed', result.error);
        return result;
      };
      const seed = async () => {
        // The sweeper publishes what the log holds unpublished: one event per run.
        if (bundle.id === 'Sweeper') await events.append([ENVELOPE(`evt_bench_${Date.now()}`)], Date.now());
      };
      const firstInvocation: number[] = [];
      const imported: number[] = [];
      const cpu: number[] = [];
      let calls: string[] = [];
      for (let i = 0; i < runs; i++) {
        await seed();
        const before = stub.calls.length;
        const r = await invokeOnce();
        if (i === 0) calls = stub.calls.slice(before);
        firstInvocation.push(r.done);
        imported.push(r.imported);
        cpu.push(r.cpuMs);
      }
      return {
        measured: {
          ...bundle,
          firstInvocation: timing(firstInvocation),
          imported: timing(imported),
          cpu: timing(cpu),
          calls,
        },
        profile: async () => {
          await seed();
          return cpuByPackage((args) => invokeOnce(args), dir);
        },
      };
    };
    const { measured: base } = await measure(baseline);
    const results: BundleResult[] = [];
    for (const bundle of bundles) {
      const { measured: m, profile } = await measure(bundle);
      const timeRatio = round(m.firstInvocation.medianMs / base.firstInvocation.medianMs, 2);
      const sizeRatio = round(m.bytes / base.bytes, 2);
      const cpuRatio = round(m.cpu.medianMs / base.cpu.medianMs, 2);
      const missed = timeRatio > BUNDLE_GOALS.maxTimeRatio || sizeRatio > BUNDLE_GOALS.maxSizeRatio;
      results.push({
        ...m,
        timeRatio,
        sizeRatio,
        cpuRatio,
        ...(missed
          ? { breakdown: { bytesByPackage: await bytesByPackage(m.entry), cpuByPackage: await profile() } }
          : {}),
      });
    }
    const ratios = (m: Measured) => ({
      timeRatio: round(m.firstInvocation.medianMs / base.firstInvocation.medianMs, 2),
      sizeRatio: round(m.bytes / base.bytes, 2),
      cpuRatio: round(m.cpu.medianMs / base.cpu.medianMs, 2),
    });
    const variants: BundleVariant[] = [];
    for (const v of variantBundles) {
      const measured: BundleVariant['bundles'][number][] = [];
      for (const bundle of v.bundles) {
        const { measured: m } = await measure(bundle, v.label);
        measured.push({ ...m, ...ratios(m) });
      }
      variants.push({ label: v.label, bundles: measured });
    }
    const version = execFileSync(nodeBin, ['-v'], { encoding: 'utf8' }).trim();
    return {
      node: version,
      runs,
      baseline: { ...base, timeRatio: 1, sizeRatio: 1, cpuRatio: 1 },
      bundles: results,
      variants,
    };
  } finally {
    await stub.close();
    client.destroy();
    await dynamo.stop();
    rmSync(sandbox, { recursive: true, force: true });
  }
}

const met = (ok: boolean) => (ok ? 'met' : '**not met**');

/** The same functions built each way, side by side: size, then CPU of the first invocation, ÷ the baseline's. */
function steps(result: BundleBenchResult): string[] {
  if (result.variants.length === 0) return [];
  const before = result.variants.filter((v) => v.label.startsWith('revision '));
  const after = result.variants.filter((v) => !v.label.startsWith('revision '));
  const columns = [
    ...before,
    { label: 'this revision (tracing on, the default)', bundles: result.bundles },
    ...after,
  ];
  const cell = (v: (typeof columns)[number], id: string) => {
    const b = v.bundles.find((x) => x.id === id);
    return b ? `${kb(b.bytes)}, ${b.sizeRatio}× / ${b.cpu.medianMs} ms, ${b.cpuRatio}×` : '–';
  };
  return [
    '',
    'What each step bought, measured in this same run (each cell: size and size ÷ baseline / first-invocation CPU and CPU ÷ baseline):',
    '',
    `| function | ${columns.map((c) => c.label).join(' | ')} |`,
    `|---|${columns.map(() => '---').join('|')}|`,
    ...result.bundles.map((b) => `| ${b.id} | ${columns.map((c) => cell(c, b.id)).join(' | ')} |`),
  ];
}
const kb = (bytes: number) => `${round(bytes / 1000)} KB`;

export function markdown(result: BundleBenchResult): string {
  const b0 = result.baseline;
  const row = (b: BundleResult, goals: boolean) =>
    `| ${b.id} | \`${b.entry}\` | ${kb(b.bytes)} | ${goals ? `${b.sizeRatio}×` : '1×'} | ${b.firstInvocation.medianMs} ms | ${b.firstInvocation.minMs}–${b.firstInvocation.maxMs} ms | ${goals ? `${b.timeRatio}×` : '1×'} | ${b.imported.medianMs} ms | ${b.cpu.medianMs} ms | ${goals ? `${b.cpuRatio}×` : '1×'} | ${summarizeCalls(b.calls)} | ${goals ? `${met(b.sizeRatio <= BUNDLE_GOALS.maxSizeRatio)} / ${met(b.timeRatio <= BUNDLE_GOALS.maxTimeRatio)}` : '–'} |`;
  const missed = result.bundles.filter((b) => b.breakdown);
  return [
    '## Lambda bundles: size and cold start as felt',
    '',
    `Bundles as \`cdk synth\` builds them (lib/bundling.ts: esbuild, ESM, minified, source maps, \`mainFields: ['module', 'main']\`, the AWS SDK v3 bundled in). First invocation = from a fresh \`node --enable-source-maps\` process (${result.node}) to the end of the handler's first invocation: import, handler init, and the invocation's real AWS calls (DynamoDB on DynamoDB Local, EventBridge / SQS / Secrets Manager on a stub on 127.0.0.1 through \`AWS_ENDPOINT_URL_<SERVICE>\`, fake static keys in the environment); median of ${result.runs} fresh processes. The baseline (\`${b0.entry}\`) is bundled with the same esbuild options and makes one DynamoDB GetItem and one PutEvents with bare SDK clients. CPU = user + system of the whole process (all threads), which other load moves less than wall time.`,
    '',
    '| function | handler | size | size ÷ baseline | first invocation (median) | min–max | time ÷ baseline | of which import | CPU (median) | CPU ÷ baseline | AWS calls of the first invocation | goals (size / time) |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    row(b0, false),
    ...result.bundles.map((b) => row(b, true)),
    '',
    `Goals: every bundle ≤ ${BUNDLE_GOALS.maxSizeRatio} × the baseline's size and ≤ ${BUNDLE_GOALS.maxTimeRatio} × its first-invocation time.`,
    ...steps(result),
    ...(missed.length === 0
      ? []
      : [
          '',
          "Where the bytes and the time go, for the bundles that miss a goal (bytes: esbuild metafile of the same build, by source package; CPU: `--cpu-prof` of one more first invocation, self time by source package through the bundle's source map):",
          '',
          '| function | largest packages (bytes in the bundle) | most self CPU time |',
          '|---|---|---|',
          ...missed.map(
            (b) =>
              `| ${b.id} | ${(b.breakdown?.bytesByPackage ?? []).map(([p, n]) => `${p} ${kb(n)}`).join(', ')} | ${(b.breakdown?.cpuByPackage ?? []).map(([p, ms]) => `${p} ${ms} ms`).join(', ')} |`,
          ),
        ]),
    '',
  ].join('\n');
}

function summarizeCalls(calls: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const c of calls) counts.set(c, (counts.get(c) ?? 0) + 1);
  return [...counts].map(([c, n]) => (n > 1 ? `${c} ×${n}` : c)).join(', ') || '(none)';
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const { values } = parseArgs({ options: { runs: { type: 'string' } }, strict: true });
    const result = await run(values.runs === undefined ? {} : { runs: Number(values.runs) });
    console.log(markdown(result));
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  }
}
