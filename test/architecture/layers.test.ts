import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));
}

/** Every module specifier a file imports or re-exports (static and dynamic). */
function specifiers(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const found: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"`;]*?from\s*['"]([^'"]+)['"]/g))
    found.push(m[1] ?? '');
  for (const m of text.matchAll(/(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g)) found.push(m[1] ?? '');
  for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(m[1] ?? '');
  return found;
}

describe('layers', () => {
  it('the scan sees the imports it checks (a file known to import the simulator)', () => {
    expect(specifiers('functions/local/simulator.ts')).toContain('../../sim');
  });

  it('functions/local reaches the simulator only through its one port module, simulator.ts', () => {
    const offenders = sources('functions/local')
      .filter((f) => f !== join('functions', 'local', 'simulator.ts'))
      .filter((f) => specifiers(f).some((s) => /(^|\/)sim(\/|$)/.test(s)))
      .map((f) => relative(root, join(root, f)));
    expect(offenders).toEqual([]);
  });
});
