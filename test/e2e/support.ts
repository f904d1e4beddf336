/**
 * `carhook dev` as a child process, exactly as a user starts it (`node bin/carhook.mjs dev …`),
 * and helpers to talk to it: its HTTP API (admin token), the simulator's control API, a receiver.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { freePort } from '../../functions/adapters/local/dynamodb-local';

export const ROOT = join(import.meta.dirname, '..', '..');
export const CARHOOK = join(ROOT, 'bin', 'carhook.mjs');

export interface DevProcess {
  readonly child: ChildProcess;
  readonly api: string;
  readonly sim: string;
  output(): string;
  /** Resolves with the exit code once the process ended. */
  readonly exited: Promise<number | null>;
  /** SIGINT (Ctrl-C) and wait for the exit code. */
  stop(): Promise<number | null>;
  /** Cleanup after a failure: SIGINT, then SIGKILL if it does not exit in 20 s. */
  kill(): Promise<void>;
}

/**
 * SIGINT first: `carhook dev` then stops its DynamoDB Local (a SIGKILL would leave that Java
 * process running, orphaned); SIGKILL only if it does not exit in time.
 */
async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

/** Runs `node bin/carhook.mjs <args>` to completion (flag errors and such). */
export function runCarhook(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CARHOOK, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

export async function startDev(options: {
  args: readonly string[];
  token: string;
  port: number;
  simPort: number;
  readyTimeoutMs?: number;
}): Promise<DevProcess> {
  const child = spawn(
    process.execPath,
    [CARHOOK, 'dev', '--port', String(options.port), '--sim-port', String(options.simPort), ...options.args],
    { cwd: ROOT, env: { ...process.env, CARHOOK_ADMIN_TOKEN: options.token } },
  );
  let output = '';
  child.stdout?.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    output += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = await Promise.race([
    new Promise<boolean>((resolve) => {
      const check = () => {
        if (output.includes('Ready. Ctrl-C to stop.')) resolve(true);
        else setTimeout(check, 100);
      };
      check();
    }),
    exited.then(() => false),
    new Promise<boolean>((resolve) =>
      setTimeout(() => resolve(false), options.readyTimeoutMs ?? 60_000).unref(),
    ),
  ]);
  if (!ready) {
    await stopChild(child, exited);
    throw new Error(`carhook dev did not become ready:\n${output}`);
  }
  return {
    child,
    api: `http://127.0.0.1:${options.port}`,
    sim: `http://127.0.0.1:${options.simPort}`,
    output: () => output,
    exited,
    async stop() {
      if (child.exitCode === null) child.kill('SIGINT');
      return exited;
    },
    kill: () => stopChild(child, exited),
  };
}

export { freePort };

// biome-ignore lint/suspicious/noExplicitAny: JSON answers, read freely by the test.
export type AnyJson = any;

export async function json(
  url: string,
  init: { method?: string; token?: string; body?: unknown } = {},
): Promise<{ status: number; body: AnyJson }> {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

export interface Delivery {
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  readonly answered: number;
}

/** A webhook endpoint on 127.0.0.1 that records every request and answers `status()`. */
export async function startRecorder(status: () => number) {
  const requests: Delivery[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answered = status();
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), answered });
      // A later retry than the first one of the schedule: the restart happens before it.
      res.writeHead(answered, answered >= 500 ? { 'retry-after': '12' } : {}).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Waits (polling) until `probe` returns a value; fails with `what` and the process output. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  dev?: DevProcess,
  timeoutMs = 30_000,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs) {
      throw new Error(
        `timed out waiting for ${what}${dev ? `\n--- carhook dev output ---\n${dev.output().slice(-4000)}` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Waits until `count` (e.g. the size of the event log) has stayed the same for `polls` readings in
 * a row: the polls in flight have finished and announced what they found.
 */
export async function untilQuiet(
  what: string,
  count: () => Promise<number>,
  dev: DevProcess,
  options: { polls?: number; timeoutMs?: number } = {},
): Promise<void> {
  let last = -1;
  let quiet = 0;
  await until(
    what,
    async () => {
      const n = await count();
      quiet = n === last ? quiet + 1 : 0;
      last = n;
      return quiet >= (options.polls ?? 12) ? true : undefined;
    },
    dev,
    options.timeoutMs ?? 60_000,
  );
}

/**
 * Steps the simulated clock of a `carhook dev --clock simulated` process (`POST /_sim/clock/advance`,
 * which answers once Carhook's cycle and every due job and delivery settled) until `probe` finds
 * something; fails naming `what` and the process output after `maxSteps` steps.
 */
export async function stepUntil<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  dev: DevProcess,
  options: { stepMs?: number; maxSteps?: number } = {},
): Promise<T> {
  const stepMs = options.stepMs ?? 1000;
  const maxSteps = options.maxSteps ?? 120;
  for (let step = 0; ; step++) {
    const found = await probe();
    if (found !== undefined) return found;
    if (step >= maxSteps) {
      throw new Error(
        `${what}: not there after ${maxSteps} steps of ${stepMs} simulated ms\n--- carhook dev output ---\n${dev.output().slice(-4000)}`,
      );
    }
    const advanced = await json(`${dev.sim}/_sim/clock/advance`, { method: 'POST', body: { ms: stepMs } });
    if (advanced.status !== 200)
      throw new Error(`clock advance answered ${advanced.status}: ${JSON.stringify(advanced.body)}`);
  }
}

/** Steps until `count` stayed the same over `steps` steps: everything due has been done. */
export async function stepUntilQuiet(
  what: string,
  count: () => Promise<number>,
  dev: DevProcess,
  options: { steps?: number; stepMs?: number; maxSteps?: number } = {},
): Promise<void> {
  let last = -1;
  let quiet = 0;
  await stepUntil(
    what,
    async () => {
      const n = await count();
      quiet = n === last ? quiet + 1 : 0;
      last = n;
      return quiet >= (options.steps ?? 3) ? true : undefined;
    },
    dev,
    options,
  );
}
