/**
 * `npm run openapi`: writes the OpenAPI document the HTTP API serves (`GET /openapi.json`) to
 * examples/api-client/openapi.json, and the client types openapi-typescript generates from it to
 * examples/api-client/src/carhook-api.d.ts, the example of a typed client and receiver. `--check`
 * writes nothing and exits 1 when either differs (a test runs the same check).
 *
 * The document is built by the app itself, over in-memory ports: its routes register their schemas
 * when the app is created, and none of them is called.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createMemoryStores } from '../functions/adapters/memory/stores';
import { createMemorySubscriptionStores } from '../functions/adapters/memory/subscriptions';
import { createLocalSecrets } from '../functions/adapters/secrets';
import { generateKey } from '../functions/core/crypto/token-cipher';
import type { DeliveryJob } from '../functions/core/delivery/engine';
import type { EventBus } from '../functions/core/publishing/ports';
import type { JobQueue } from '../functions/core/queue/ports';
import { createMemoryRateBudget } from '../functions/core/ratelimit/budget';
import { createHttpApp } from '../functions/http/app';
import { createRuntime } from '../functions/runtime/runtime';
import { createWebhooks } from '../functions/runtime/webhooks';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CLIENT_DIR = join(ROOT, 'examples', 'api-client');
export const DOCUMENT_PATH = join(CLIENT_DIR, 'openapi.json');
export const TYPES_PATH = join(CLIENT_DIR, 'src', 'carhook-api.d.ts');
const GENERATOR = join(CLIENT_DIR, 'node_modules', '.bin', 'openapi-typescript');

const nothing = async () => undefined;
const noQueue: JobQueue<never> = { send: nothing };
const noBus: EventBus = { publish: async (events) => ({ published: events.map((e) => e.id), failed: [] }) };

/** The document as `GET /openapi.json` serves it. */
export async function apiDocument(): Promise<Record<string, unknown>> {
  const runtime = createRuntime(
    {
      api: { baseUrl: 'http://127.0.0.1:1', authUrl: 'http://127.0.0.1:1', brands: ['cielo', 'pavo'] },
      quota: { requests: 120, windowSeconds: 60 },
      pollIntervalSeconds: 60,
      version: (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string })
        .version,
    },
    {
      stores: createMemoryStores(),
      rateBudget: createMemoryRateBudget(),
      bus: noBus,
      pollQueue: noQueue,
      secrets: createLocalSecrets({
        apiClient: { kind: 'value', json: JSON.stringify({ clientId: 'x', clientSecret: 'x' }) },
        keyRing: { kind: 'value', json: JSON.stringify({ current: 'k1', k1: generateKey() }) },
      }),
    },
  );
  const webhooks = await createWebhooks(runtime, {
    ...createMemorySubscriptionStores(),
    deliveryQueue: noQueue as JobQueue<DeliveryJob>,
  });
  const app = createHttpApp(
    { runtime, subscriptions: webhooks.service },
    { auth: { kind: 'admin-token', token: 'document-only-admin-token' } },
  );
  const res = await app.request('/openapi.json');
  return (await res.json()) as Record<string, unknown>;
}

/** The document's text and the client types generated from it. */
export async function apiClientFiles(): Promise<{ document: string; types: string }> {
  const document = `${JSON.stringify(await apiDocument(), null, 2)}\n`;
  const dir = await mkdtemp(join(tmpdir(), 'carhook-openapi-'));
  try {
    await writeFile(join(dir, 'openapi.json'), document);
    await promisify(execFile)(GENERATOR, [join(dir, 'openapi.json'), '-o', join(dir, 'api.d.ts')], {
      cwd: ROOT,
    });
    return { document, types: await readFile(join(dir, 'api.d.ts'), 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { document, types } = await apiClientFiles();
  if (process.argv.includes('--check')) {
    const stale = [
      ...((await readFile(DOCUMENT_PATH, 'utf8').catch(() => '')) === document ? [] : [DOCUMENT_PATH]),
      ...((await readFile(TYPES_PATH, 'utf8').catch(() => '')) === types ? [] : [TYPES_PATH]),
    ];
    if (stale.length > 0) {
      console.error(`${stale.join(', ')} differ from the API's document: run npm run openapi`);
      process.exit(1);
    }
  } else {
    await writeFile(DOCUMENT_PATH, document);
    await writeFile(TYPES_PATH, types);
    console.log(`wrote ${DOCUMENT_PATH} and ${TYPES_PATH}`);
  }
}
