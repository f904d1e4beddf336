/**
 * The `--data-dir` of `carhook dev`: private to the user, and used by one runtime at a time.
 *
 * - The directory and its subdirectories are 0700, the files 0600 (keys, tokens, events and the
 *   DynamoDB Local database are readable by nobody else on the machine). Modes are set on every
 *   start, so a directory written by an older version or a permissive umask is tightened too.
 * - A lock file (`carhook.lock`, holding the owner's pid) is created exclusively: a second runtime
 *   on the same directory is refused with the other process's pid, because two DynamoDB Local
 *   JVMs on one SQLite file corrupt it. A lock left by a process that no longer exists (kill -9,
 *   power loss) is taken over.
 */
import { chmod, lstat, mkdir, open, readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalRuntimeError } from './errors';

export const LOCK_FILE = 'carhook.lock';
export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

export interface DataDirLock {
  readonly path: string;
  release(): Promise<void>;
}

/** True when a process with this pid exists (EPERM: it exists, owned by someone else). */
export function processExists(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Sets 0700 on directories and 0600 on files, recursively (symbolic links are left alone). */
export async function tightenModes(dir: string): Promise<void> {
  await chmod(dir, DIR_MODE);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await tightenModes(path);
    else if (entry.isFile()) await chmod(path, FILE_MODE);
  }
}

async function readOwner(path: string): Promise<number | undefined> {
  try {
    const pid = Number((await readFile(path, 'utf8')).trim().split(/\s+/)[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Creates the data directory (0700) and takes its lock for this process; throws DataDirInUse
 * naming the other process when a live one holds it.
 */
export async function lockDataDir(dir: string, pid: number = process.pid): Promise<DataDirLock> {
  try {
    await mkdir(dir, { recursive: true, mode: DIR_MODE });
    const stat = await lstat(dir);
    if (!stat.isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    await tightenModes(dir);
  } catch (error) {
    throw new LocalRuntimeError(
      'Config',
      `--data-dir ${dir}: cannot prepare it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); choose a directory Carhook can create and write`,
      '--data-dir',
    );
  }
  const path = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(path, 'wx', FILE_MODE);
      await handle.writeFile(`${pid}\n`);
      await handle.close();
      return {
        path,
        async release() {
          // Only our own lock: never remove one another runtime took over after us.
          if ((await readOwner(path)) === pid) await unlink(path).catch(() => {});
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await readOwner(path);
    // Our own pid counts too: a second runtime in this very process must not share the files.
    if (owner !== undefined && processExists(owner)) {
      throw new LocalRuntimeError(
        'DataDirInUse',
        `--data-dir ${dir} is in use by another Carhook runtime (process ${owner}): stop it first, or choose another --data-dir`,
        '--data-dir',
      );
    }
    // Stale (its process is gone) or unreadable: take it over.
    await unlink(path).catch(() => {});
  }
  throw new LocalRuntimeError(
    'DataDirInUse',
    `--data-dir ${dir}: could not take ${LOCK_FILE}; another runtime is starting on it`,
    '--data-dir',
  );
}
