/**
 * Lambda, played for the rehearsal: each function's bundle (the `index.mjs` of its asset folder)
 * runs in containers, each a Node process (./container.mjs) that loads the bundle once and then
 * takes one invocation at a time, kept warm between invocations as Lambda keeps them. A container
 * that crashes or times out is gone; the next invocation starts a fresh one.
 *
 * Its environment is the template's `Environment` plus what Lambda itself sets (region, the
 * role's credentials, function name, memory, log format, X-Ray), the SDK's endpoint redirection
 * (`AWS_ENDPOINT_URL`) and the overrides the caller lists: nothing of the rehearsal's own
 * environment leaks in.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Credentials } from './admin';
import type { RehearsedFunction } from './model';

const CONTAINER = join(dirname(fileURLToPath(import.meta.url)), 'container.mjs');
/** Lambda's limit for an on-demand function's init phase. */
const INIT_TIMEOUT_MS = 10_000;

export type InvokeOutcome =
  | { readonly ok: true; readonly value: unknown; readonly ms: number; readonly cold: boolean }
  | {
      readonly ok: false;
      readonly kind: 'error' | 'timeout' | 'crash' | 'init';
      readonly errorType: string;
      readonly errorMessage: string;
      readonly ms: number;
      readonly cold: boolean;
    };

export interface HostOptions {
  readonly credentials: Credentials;
  readonly region: string;
  readonly awsEndpoint: string;
  /** Values that replace the template's (the API's address outside AWS), stated by the caller. */
  readonly overrides?: Readonly<Record<string, string>>;
  /** Each line a container writes. */
  readonly onLog: (fn: RehearsedFunction, line: string) => void;
  /** Containers one function may run at once (Lambda scales out; the rehearsal caps it). */
  readonly maxContainers?: number;
  /** Set in every container's environment, so a check can find the rehearsal's processes. */
  readonly runMarker: string;
}

interface Container {
  readonly child: ChildProcess;
  readonly id: string;
  busy: boolean;
  readonly ready: Promise<void>;
  used: boolean;
}

export class FunctionHost {
  private readonly containers: Container[] = [];
  private readonly waiting: (() => void)[] = [];
  private stopped = false;

  constructor(
    readonly fn: RehearsedFunction,
    private readonly options: HostOptions,
  ) {}

  /** The environment a container of this function starts with. */
  environment(): Record<string, string> {
    const { fn, options } = this;
    const lambda: Record<string, string> = {
      AWS_REGION: options.region,
      AWS_DEFAULT_REGION: options.region,
      AWS_ACCESS_KEY_ID: options.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: options.credentials.secretAccessKey,
      ...(options.credentials.sessionToken ? { AWS_SESSION_TOKEN: options.credentials.sessionToken } : {}),
      AWS_LAMBDA_FUNCTION_NAME: fn.name,
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
      AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.name}`,
      AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
      AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
      LAMBDA_TASK_ROOT: fn.codeDir,
      _HANDLER: fn.handler,
      TZ: ':UTC',
      LANG: 'en_US.UTF-8',
      PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
      ...(fn.logFormat === 'JSON' ? { AWS_LAMBDA_LOG_FORMAT: 'JSON' } : {}),
      ...(fn.tracing
        ? { AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:2000', AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR' }
        : {}),
      // The SDK sends every service's calls here (the rehearsal's IAM gate).
      AWS_ENDPOINT_URL: options.awsEndpoint,
      CARHOOK_REHEARSAL_RUN: options.runMarker,
    };
    return { ...fn.environment, ...options.overrides, ...lambda };
  }

  async invoke(event: unknown, requestId: string = randomUUID()): Promise<InvokeOutcome> {
    const started = Date.now();
    const container = await this.take();
    const cold = !container.used;
    container.used = true;
    try {
      try {
        await withTimeout(container.ready, INIT_TIMEOUT_MS, 'init');
      } catch (error) {
        this.discard(container);
        const e = error as { errorType?: string; message?: string };
        return {
          ok: false,
          kind: 'init',
          errorType: e.errorType ?? 'Runtime.InitError',
          errorMessage: String(e.message ?? error),
          ms: Date.now() - started,
          cold,
        };
      }
      return await this.run(container, event, requestId, started, cold);
    } finally {
      container.busy = false;
      this.waiting.shift()?.();
    }
  }

  private run(
    container: Container,
    event: unknown,
    requestId: string,
    started: number,
    cold: boolean,
  ): Promise<InvokeOutcome> {
    const { fn } = this;
    const deadline = Date.now() + fn.timeoutSeconds * 1000;
    const fail = (
      kind: 'error' | 'timeout' | 'crash',
      errorType: string,
      errorMessage: string,
    ): InvokeOutcome => ({
      ok: false,
      kind,
      errorType,
      errorMessage,
      ms: Date.now() - started,
      cold,
    });
    return new Promise<InvokeOutcome>((resolve) => {
      const timer = setTimeout(() => {
        cleanup();
        this.discard(container);
        resolve(
          fail('timeout', 'Sandbox.Timedout', `Task timed out after ${fn.timeoutSeconds.toFixed(2)} seconds`),
        );
      }, fn.timeoutSeconds * 1000);
      const onMessage = (m: {
        type: string;
        id?: string;
        value?: unknown;
        error?: { errorType: string; errorMessage: string };
      }) => {
        if (m.id !== requestId) return;
        cleanup();
        if (m.type === 'result') resolve({ ok: true, value: m.value, ms: Date.now() - started, cold });
        else resolve(fail('error', m.error?.errorType ?? 'Error', m.error?.errorMessage ?? 'unknown error'));
      };
      const onExit = (code: number | null, signal: string | null) => {
        cleanup();
        this.discard(container);
        resolve(
          fail(
            'crash',
            'Runtime.ExitError',
            `Runtime exited with ${signal ? `signal ${signal}` : `exit status ${code}`}`,
          ),
        );
      };
      const cleanup = () => {
        clearTimeout(timer);
        container.child.off('message', onMessage);
        container.child.off('exit', onExit);
      };
      container.child.on('message', onMessage);
      container.child.once('exit', onExit);
      container.child.send({
        type: 'invoke',
        id: requestId,
        event,
        deadline,
        traceId: `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomBytes(12).toString('hex')};Parent=${randomBytes(8).toString('hex')};Sampled=0`,
        context: {
          functionName: fn.name,
          functionVersion: '$LATEST',
          invokedFunctionArn: fn.arn,
          memoryLimitInMB: String(fn.memoryMb),
          awsRequestId: requestId,
          logGroupName: `/aws/lambda/${fn.name}`,
          logStreamName: `rehearsal/[$LATEST]${container.id}`,
        },
      });
    });
  }

  /** Drops the idle containers: the next invocation starts a fresh one (a new Lambda container). */
  recycle(): void {
    for (const c of [...this.containers]) if (!c.busy) this.discard(c);
  }

  get containerCount(): number {
    return this.containers.length;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const exits = this.containers.map(
      (c) => new Promise<void>((r) => (c.child.exitCode !== null ? r() : c.child.once('exit', () => r()))),
    );
    for (const c of [...this.containers]) this.discard(c);
    await Promise.all(exits);
  }

  private async take(): Promise<Container> {
    for (;;) {
      if (this.stopped) throw new Error(`${this.fn.logicalId}: the rehearsal is stopping`);
      const idle = this.containers.find((c) => !c.busy && c.child.exitCode === null);
      if (idle) {
        idle.busy = true;
        return idle;
      }
      if (this.containers.length < (this.options.maxContainers ?? 2)) {
        const c = this.start();
        c.busy = true;
        return c;
      }
      await new Promise<void>((r) => this.waiting.push(r));
    }
  }

  private start(): Container {
    const id = randomBytes(6).toString('hex');
    const child = spawn(process.execPath, [CONTAINER], {
      cwd: this.fn.codeDir,
      env: this.environment(),
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const forward = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line.trim()) this.options.onLog(this.fn, line);
    };
    child.stdout?.on('data', forward);
    child.stderr?.on('data', forward);
    const ready = new Promise<void>((resolve, reject) => {
      const onMessage = (m: { type: string; error?: { errorType: string; errorMessage: string } }) => {
        if (m.type === 'ready') resolve();
        if (m.type === 'init-error')
          reject(Object.assign(new Error(m.error?.errorMessage), { errorType: m.error?.errorType }));
        if (m.type === 'ready' || m.type === 'init-error') child.off('message', onMessage);
      };
      child.on('message', onMessage);
      child.once('exit', (code) => reject(new Error(`the container exited during init (status ${code})`)));
    });
    ready.catch(() => {}); // observed by invoke
    child.send({ type: 'init', codeDir: this.fn.codeDir, handler: this.fn.handler });
    const container: Container = { child, id, busy: false, ready, used: false };
    child.once('exit', () => {
      const i = this.containers.indexOf(container);
      if (i >= 0) this.containers.splice(i, 1);
    });
    this.containers.push(container);
    return container;
  }

  private discard(container: Container): void {
    const i = this.containers.indexOf(container);
    if (i >= 0) this.containers.splice(i, 1);
    if (container.child.exitCode === null) container.child.kill('SIGKILL');
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
