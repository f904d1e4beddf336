import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

/** Relative specifiers a file imports or re-exports, type-only ones included, resolved to files. */
function localImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"`;]*?from\s*['"](\.[^'"]+)['"]/g)) {
    const base = resolve(dirname(file), m[1] ?? '');
    const target = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((p) => existsSync(p));
    if (target !== undefined) out.push(target);
  }
  return out;
}

/** The strongly connected components with more than one module (Tarjan). */
function importCycles(files: readonly string[], edges: (f: string) => readonly string[]): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return cycles;
}

describe('import cycles', () => {
  it('finds a cycle of two and one of three, and none in a chain', () => {
    const graph: Record<string, string[]> = {
      a: ['b'],
      b: ['a'],
      c: ['d'],
      d: ['e'],
      e: ['c'],
      f: ['g'],
      g: [],
    };
    expect(importCycles(Object.keys(graph), (f) => graph[f] ?? [])).toEqual([
      ['a', 'b'],
      ['c', 'd', 'e'],
    ]);
  });

  it('no module of functions/ imports itself through others (type-only imports count: a type lives with the concept that owns it)', () => {
    const dir = join(root, 'functions');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.includes('node_modules'))
      .map((f) => join(dir, f));
    const cycles = importCycles(files, localImports).map((c) => c.map((f) => relative(root, f)));
    expect(cycles).toEqual([]);
  });
});
