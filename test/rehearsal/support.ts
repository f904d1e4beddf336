/**
 * What the rehearsal tests share: whether moto is here (CI must have it), one synthesized app per
 * test file, template mutations for the negative controls, and a look for processes a run left.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MOTO_INSTALL_HINT, motoAvailable } from '../../bin/rehearsal/moto';

export const REPO = join(import.meta.dirname, '../..');

const inCi = process.env.CI === 'true' || process.env.CI === '1';
/** Outside CI a machine without moto skips these tests; in CI they run, and fail saying what is missing. */
export const rehearsalRuns = motoAvailable() || inCi;
export const requireMoto = () => {
  if (!motoAvailable()) throw new Error(`moto_server is not on the PATH: ${MOTO_INSTALL_HINT}`);
};

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

type Template = { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> };

/** A copy of `cdkOut` whose template `file` went through `change` (a negative control). */
export function mutatedCopy(cdkOut: string, file: string, change: (t: Template) => void): string {
  const dir = tempDir('carhook-rehearsal-control-');
  cpSync(cdkOut, dir, { recursive: true });
  const path = join(dir, file);
  const template = JSON.parse(readFileSync(path, 'utf8')) as Template;
  change(template);
  writeFileSync(path, JSON.stringify(template));
  return dir;
}

/** The logical id of the one resource of `type` whose id starts with `prefix`. */
export function logicalId(t: Template, type: string, prefix: string): string {
  const ids = Object.keys(t.Resources).filter(
    (id) => id.startsWith(prefix) && t.Resources[id]?.Type === type,
  );
  if (ids.length !== 1)
    throw new Error(`expected one ${type} named ${prefix}…, found ${ids.join(', ') || 'none'}`);
  return ids[0] as string;
}

/** Pids of live processes whose environment carries `CARHOOK_REHEARSAL_RUN=<marker>` (Linux /proc). */
export function processesWith(marker: string): number[] {
  const needle = `CARHOOK_REHEARSAL_RUN=${marker}`;
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(needle)) found.push(pid);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** Waits until no process of the run is left (they get a few seconds to exit); returns the survivors. */
export async function survivors(marker: string, withinMs = 8_000): Promise<number[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const left = processesWith(marker);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 200));
  }
}
