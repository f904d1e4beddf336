/**
 * What the local runtime keeps between runs in `--data-dir` (`local.json`, mode 0600): the token
 * encryption key ring (so a restart can decrypt the stored OAuth tokens and webhook secrets), the
 * OAuth state key, the admin token when none is given, and the simulator's world start (so a
 * restarted simulator rebuilds the same world, ids included). Without a data dir they are fresh.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalRuntimeError } from './errors';

export interface LocalState {
  /** `{"current":"k1","k1":"<base64 32 bytes>"}`, the Secrets Manager shape. */
  readonly keyRingJson: string;
  /** base64, 32 bytes. */
  readonly stateKey: string;
  readonly adminToken: string;
  /** Epoch ms the simulator's world started at (first run). */
  readonly simStartTime: number;
  /** The simulator world of the first run (a different one would not match the stored enrollments). */
  readonly simWorld?: { readonly seed: number; readonly vehicles: number };
}

export const STATE_FILE = 'local.json';

export const newAdminToken = (): string => `chk_${randomBytes(24).toString('base64url')}`;

export function freshState(now: number, simWorld?: LocalState['simWorld']): LocalState {
  return {
    ...(simWorld ? { simWorld } : {}),
    keyRingJson: JSON.stringify({ current: 'k1', k1: randomBytes(32).toString('base64') }),
    stateKey: randomBytes(32).toString('base64'),
    adminToken: newAdminToken(),
    // Whole seconds, as the simulator's real clock starts at the current second.
    simStartTime: Math.floor(now / 1000) * 1000,
  };
}

const isWorld = (v: unknown): v is { seed: number; vehicles: number } =>
  typeof v === 'object' &&
  v !== null &&
  Number.isInteger((v as { seed?: unknown }).seed) &&
  Number.isInteger((v as { vehicles?: unknown }).vehicles);

function parseState(path: string, text: string): LocalState {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new LocalRuntimeError(
      'Config',
      `${path} is not valid JSON: fix or delete it (a new one loses the stored tokens)`,
      'dataDir',
    );
  }
  const o = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const field = (name: string, ok: boolean) => {
    if (!ok)
      throw new LocalRuntimeError('Config', `${path}: field "${name}" is missing or malformed`, 'dataDir');
  };
  field('keyRingJson', typeof o.keyRingJson === 'string');
  field(
    'stateKey',
    typeof o.stateKey === 'string' && Buffer.from(o.stateKey as string, 'base64').length >= 32,
  );
  field('adminToken', typeof o.adminToken === 'string' && (o.adminToken as string).length >= 16);
  field('simStartTime', typeof o.simStartTime === 'number' && Number.isFinite(o.simStartTime));
  return {
    keyRingJson: o.keyRingJson as string,
    stateKey: o.stateKey as string,
    adminToken: o.adminToken as string,
    simStartTime: o.simStartTime as number,
    ...(isWorld(o.simWorld) ? { simWorld: o.simWorld } : {}),
  };
}

/** Reads `<dataDir>/local.json`, or creates it (directory too) on the first run. */
export async function loadOrCreateState(
  dataDir: string | undefined,
  now: number,
  simWorld?: LocalState['simWorld'],
): Promise<{ state: LocalState; created: boolean }> {
  if (dataDir === undefined) return { state: freshState(now, simWorld), created: true };
  const path = join(dataDir, STATE_FILE);
  try {
    return { state: parseState(path, await readFile(path, 'utf8')), created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      if (error instanceof LocalRuntimeError) throw error;
      throw new LocalRuntimeError(
        'Config',
        `--data-dir ${dataDir}: cannot read ${STATE_FILE} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); choose a directory Carhook can read and write`,
        'dataDir',
      );
    }
  }
  const state = freshState(now, simWorld);
  try {
    await mkdir(dataDir, { recursive: true });
    const tmp = `${path}.tmp`;
    await writeFile(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
    await chmod(tmp, 0o600);
    await rename(tmp, path);
  } catch (error) {
    throw new LocalRuntimeError(
      'Config',
      `--data-dir ${dataDir}: cannot write ${STATE_FILE} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); choose a writable directory`,
      'dataDir',
    );
  }
  return { state, created: true };
}
