/**
 * A missing Java, a busy port or a bad flag gets one clear line saying what to do, not a
 * stack trace — checked on the real command (`node bin/carhook.mjs dev …`).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { CARHOOK, freePort, ROOT, runCarhook } from '../e2e/support';

const oneLine = (stderr: string): string => {
  const lines = stderr.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('npm warn'));
  expect(lines, stderr).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
  return lines[0] as string;
};

async function occupy(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : 0 };
}

describe('carhook dev start-up errors', () => {
  let busy: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (busy ? busy.close(() => resolve()) : resolve()));
    busy = undefined;
  });

  it('a bad flag value: one line naming the flag, exit 2', async () => {
    const r = await runCarhook(['dev', '--poll-interval', 'soon']);
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toBe(
      'carhook dev: --poll-interval: "soon" is not a duration (examples: 500ms, 2s, 1m)',
    );
  });

  it('an unknown flag: one line, non-zero exit', async () => {
    const r = await runCarhook(['dev', '--prot', '8080']);
    expect(r.code).not.toBe(0);
    expect(oneLine(r.stderr)).toMatch(/unknown option '--prot'/);
  });

  it('a busy --port: one line saying to choose another, exit 1', async () => {
    const taken = await occupy();
    busy = taken.server;
    const r = await runCarhook(['dev', '--port', String(taken.port), '--sim-port', '0']);
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toBe(
      `carhook dev: port ${taken.port} on 127.0.0.1 is already in use: stop what uses it or choose another with --port`,
    );
  });

  it('a busy --sim-port: one line naming --sim-port', async () => {
    const taken = await occupy();
    busy = taken.server;
    const r = await runCarhook(['dev', '--port', '0', '--sim-port', String(taken.port)]);
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toContain('choose another with --sim-port');
  });

  it('no Java on the PATH: one line saying how to install it, exit 1', async () => {
    const r = await runCarhook(['dev', '--port', '0', '--sim-port', '0'], { PATH: '/nonexistent' });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(
      /^carhook dev: DynamoDB Local needs Java 17 or newer on the PATH .*Install it/,
    );
  });

  it('every command has --help', async () => {
    for (const args of [
      ['--help'],
      ['dev', '--help'],
      ['subscriptions', 'add', '--help'],
      ['events', 'tail', '--help'],
      ['verify', '--help'],
    ]) {
      const r = await runCarhook(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/^Usage: carhook/);
    }
    // Each default said once, by commander.
    const receiver = await runCarhook(['receiver', '--help']);
    expect(receiver.stdout).toMatch(/--port <port>\s+port \(default: "9000"\)\n/);
    expect(receiver.stdout.match(/9000/g)).toHaveLength(1);
    expect(receiver.stdout.match(/\/webhooks/g)).toHaveLength(1);
  });

  it("on the machine's own Node (20 here), npm and npx carhook print no EBADENGINE warning", {
    timeout: 60_000,
  }, async () => {
    // The machine's npm and node, not the Node 22 that npm ci installs into node_modules/.bin.
    const PATH = (process.env.PATH ?? '')
      .split(':')
      .filter((p) => !p.includes('node_modules'))
      .join(':');
    const run = (args: string[]) =>
      new Promise<{ out: string; code: number | null }>((resolve) => {
        const child = spawn('npm', args, { cwd: ROOT, env: { ...process.env, PATH } });
        let out = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.stderr.on('data', (c: Buffer) => (out += c.toString()));
        child.on('exit', (code) => resolve({ out, code }));
      });
    const install = await run(['install', '--dry-run', '--no-audit', '--no-fund', '--ignore-scripts']);
    expect(install.code, install.out).toBe(0);
    expect(install.out).not.toContain('EBADENGINE');
    const npx = await run(['exec', '--no', '--', 'carhook', '--help']);
    expect(npx.out).toMatch(/^Usage: carhook/);
    expect(npx.out).not.toContain('EBADENGINE');
  });

  it('Ctrl-C during start-up stops within 2 s, cleanly, saying so, and leaves no DynamoDB Local running', {
    timeout: 60_000,
  }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'carhook-interrupted-'));
    try {
      const child = spawn(
        process.execPath,
        [
          CARHOOK,
          'dev',
          '--port',
          String(await freePort()),
          '--sim-port',
          String(await freePort()),
          '--data-dir',
          dataDir,
        ],
        { cwd: ROOT, env: { ...process.env, CARHOOK_ADMIN_TOKEN: 'interrupted-start-admin-token' } },
      );
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (out += c.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      await expect.poll(() => out, { timeout: 20_000 }).toContain('starting DynamoDB Local');
      // While the JVM boots.
      await new Promise((r) => setTimeout(r, 300));
      const signalledAt = Date.now();
      child.kill('SIGINT');
      const code = await exited;
      expect(Date.now() - signalledAt).toBeLessThan(2_000);
      expect(code, out).toBe(0);
      expect(out).toContain('carhook dev: interrupted: stopping the start-up…\n');
      expect(out).toContain('carhook dev: stopped during start-up (nothing left running)\n');
      expect(out).not.toContain('Ready.');
      const ps = await promisify(execFile)('ps', ['-eo', 'args']);
      expect(ps.stdout).not.toContain(dataDir);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
