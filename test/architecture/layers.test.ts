import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
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

/** The environment and clock reads in a source text, comments left out. */
function ambientReads(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const patterns = [
    [/\bprocess\.env\b/, 'process.env'],
    [/\bDate\.now\b/, 'Date.now'],
    [/\bnew Date\(\s*\)/, 'new Date()'],
  ] as const;
  return patterns.filter(([pattern]) => pattern.test(code)).map(([, what]) => what);
}

describe('layers', () => {
  it('the ambient-read scan finds code and ignores comments', () => {
    expect(ambientReads('const a = Date.now(); const b = new Date(); f(process.env.X);')).toEqual([
      'process.env',
      'Date.now',
      'new Date()',
    ]);
    expect(ambientReads('/** Date.now */ const a = 1; // process.env and new Date()')).toEqual([]);
  });

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

  it('functions/core imports nothing outside core but packages, and no IO module of node', () => {
    const core = join(root, 'functions', 'core');
    const io = /^(node:)?(fs|fs\/promises|net|dns|dns\/promises|http|https|http2|tls|dgram|child_process)$/;
    const offenders: string[] = [];
    for (const file of sources('functions/core')) {
      for (const spec of specifiers(file)) {
        const outside =
          spec.startsWith('.') && relative(core, resolve(dirname(join(root, file)), spec)).startsWith('..');
        if (outside || io.test(spec) || spec.startsWith('@aws-sdk/')) offenders.push(`${file}: ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('functions/core reads neither the environment nor the clock, except clock.ts (the clock port default)', () => {
    const allowed = new Set([join('functions', 'core', 'clock.ts')]);
    const offenders: string[] = [];
    for (const file of sources('functions/core')) {
      if (allowed.has(file)) continue;
      for (const what of ambientReads(readFileSync(join(root, file), 'utf8')))
        offenders.push(`${file}: ${what}`);
    }
    expect(offenders).toEqual([]);
  });
});
