import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LOCK_FILE, lockDataDir } from '../../functions/local/data-dir';
import { LocalRuntimeError } from '../../functions/local/errors';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'carhook-datadir-'));
  dirs.push(d);
  return d;
}

/** The pid of a process that has certainly ended. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await once(child, 'exit');
  return child.pid ?? 0;
}

describe('data directory lock and modes', () => {
  it('takes the lock with our pid, refuses a second holder naming it, and releases it', async () => {
    const dir = join(await tempDir(), 'data');
    const lock = await lockDataDir(dir);
    expect((await readFile(join(dir, LOCK_FILE), 'utf8')).trim()).toBe(String(process.pid));
    const second = await lockDataDir(dir).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(LocalRuntimeError);
    expect((second as LocalRuntimeError).kind).toBe('DataDirInUse');
    expect((second as LocalRuntimeError).message).toContain(`(process ${process.pid})`);
    await lock.release();
    const again = await lockDataDir(dir);
    await again.release();
  });

  it('takes over a lock left by a process that no longer exists', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, LOCK_FILE), `${await deadPid()}\n`);
    const lock = await lockDataDir(dir);
    expect((await readFile(join(dir, LOCK_FILE), 'utf8')).trim()).toBe(String(process.pid));
    await lock.release();
  });

  it('tightens an existing directory to 0700 and its files to 0600', async () => {
    const dir = await tempDir();
    await chmod(dir, 0o755);
    await mkdir(join(dir, 'dynamodb'), { mode: 0o755 });
    await writeFile(join(dir, 'local.json'), '{}', { mode: 0o644 });
    await writeFile(join(dir, 'dynamodb', 'shared-local-instance.db'), '', { mode: 0o664 });
    const lock = await lockDataDir(dir);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, 'dynamodb'))).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, 'local.json'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'dynamodb', 'shared-local-instance.db'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, LOCK_FILE))).mode & 0o777).toBe(0o600);
    await lock.release();
  });
});
