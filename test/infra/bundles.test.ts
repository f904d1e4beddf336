import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BundleInfo, synthesizeBundles } from '../../bench/bundles';
import { REPO_ROOT } from '../../lib/paths';

// Sizes and first-invocation times against the baseline are bench/bundles.ts's job (no timed assertions here):
// this test proves every bundle builds as `cdk synth` builds it, and prints the sizes.
describe('Lambda bundles', () => {
  it('builds one ESM bundle per handler of functions/handlers, exporting `handler`', {
    timeout: 300_000,
  }, () => {
    const bundles: BundleInfo[] = synthesizeBundles();
    const handlers = readdirSync(join(REPO_ROOT, 'functions/handlers')).filter((f) => f.endsWith('.ts'));
    expect(bundles.map((b) => basename(b.entry)).sort()).toEqual(handlers.sort());
    for (const bundle of bundles) {
      const code = readFileSync(bundle.file, 'utf8');
      // esbuild's ESM output ends with `export{x as handler}`: the name Lambda calls (index.handler).
      expect(/export\s*\{[^}]*\bas handler\b[^}]*\}/.test(code), bundle.id).toBe(true);
      expect(code.trimEnd().endsWith('//# sourceMappingURL=index.mjs.map'), bundle.id).toBe(true);
      // Only Node built-ins are imported at load: everything else, the AWS SDK included, is inlined
      // (CarhookFunction's `externalModules: []`), so nothing is taken from the Lambda runtime.
      const imported = [
        ...code.matchAll(/(?:^|[;}])\s*import\s*(?:[\w$*{},\s]+?from\s*)?["']([^"']+)["']/g),
      ].map((m) => m[1] ?? '');
      expect(
        imported.filter((spec) => !spec.startsWith('node:')),
        bundle.id,
      ).toEqual([]);
      expect(bundle.bytes, bundle.id).toBeGreaterThan(10_000);
    }
    console.info(
      `Lambda bundles (minified):\n${bundles.map((b) => `  ${b.id.padEnd(10)} ${(b.bytes / 1000).toFixed(1).padStart(7)} KB  ${b.entry}`).join('\n')}`,
    );
  });
});
