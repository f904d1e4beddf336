/**
 * moto's server (`moto_server`, an independent implementation of the AWS APIs) for the rehearsal:
 * on 127.0.0.1 and a port the OS picks (moto prints it), IAM enforced after the first
 * `initialNoAuthActions` requests (`INITIAL_NO_AUTH_ACTION_COUNT`: those create the rehearsal's
 * administrator, every later request is checked against its signer's policies).
 *
 * It dies with this process however this process ends: a shell starts it and waits on a pipe from
 * here, and the kernel closes that pipe when this process goes, SIGKILL included; the shell then
 * stops moto. `stop()` ends the whole process group.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';

export interface MotoServer {
  readonly endpoint: string;
  readonly pid: number;
  stop(): Promise<void>;
}

export class MotoStartError extends Error {
  readonly kind = 'MotoUnavailable';
  constructor(message: string) {
    super(message);
    this.name = 'MotoStartError';
  }
}

export const MOTO_INSTALL_HINT = "pip install 'moto[server]'";

/** Whether `moto_server` can be run here. */
export function motoAvailable(): boolean {
  return spawnSync('moto_server', ['--help'], { stdio: 'ignore' }).status === 0;
}

const SCRIPT = [
  'moto_server -H 127.0.0.1 -p 0 2>&1 & m=$!',
  "trap 'kill $m 2>/dev/null; exit 0' EXIT INT TERM",
  // End of file on stdin: the rehearsal is gone.
  'while read -r _; do :; done',
].join('\n');

export async function startMoto(options: {
  initialNoAuthActions: number;
  env?: Record<string, string>;
  readyTimeoutMs?: number;
}): Promise<MotoServer> {
  if (!motoAvailable()) {
    throw new MotoStartError(`moto_server is not on the PATH: install it with ${MOTO_INSTALL_HINT}`);
  }
  const child = spawn('/bin/sh', ['-c', SCRIPT], {
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ...options.env,
      INITIAL_NO_AUTH_ACTION_COUNT: String(options.initialNoAuthActions),
      // Region-less calls and moto's own defaults stay in the rehearsal's account.
      MOTO_ACCOUNT_ID: options.env?.MOTO_ACCOUNT_ID ?? '123456789012',
    },
  });
  const pid = child.pid;
  if (pid === undefined) throw new MotoStartError('moto_server could not be started');
  const stop = async () => stopGroup(child, pid);
  try {
    const port = await readPort(child, options.readyTimeoutMs ?? 30_000);
    return { endpoint: `http://127.0.0.1:${port}`, pid, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Lets the next `requests` requests through without IAM (moto's `/moto-api/reset-auth`), then
 * enforcement resumes by itself. For what a service does on its own authority: Lambda assuming a
 * function's execution role (moto cannot evaluate a trust policy whose principal is a service).
 */
export async function allowUnauthenticated(endpoint: string, requests: number): Promise<void> {
  const response = await fetch(`${endpoint}/moto-api/reset-auth`, { method: 'POST', body: String(requests) });
  if (!response.ok)
    throw new MotoStartError(
      `moto refused /moto-api/reset-auth: ${response.status} ${await response.text()}`,
    );
}

function readPort(child: ChildProcess, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => fail(`moto_server did not report a port within ${timeoutMs} ms; it said: ${output.slice(-500)}`),
      timeoutMs,
    );
    const fail = (message: string) => {
      clearTimeout(timer);
      reject(new MotoStartError(message));
    };
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /Running on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stdout?.resume(); // keep draining its log
        resolve(Number(match[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => {
      output += c.toString('utf8');
    });
    child.once('exit', (code) =>
      fail(`moto_server exited (code ${code}) before it listened: ${output.slice(-500)}`),
    );
  });
}

async function stopGroup(child: ChildProcess, pid: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdin?.end();
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    // already gone
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }, 3_000);
  await exited;
  clearTimeout(timer);
}
