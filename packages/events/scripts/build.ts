/**
 * Builds the publishable package: dist/index.js (ESM) and dist/index.cjs (CommonJS) bundled by
 * esbuild with `standardwebhooks` left as a dependency, declarations by `tsc` (index.d.ts, and
 * index.d.cts for `require` users), and the JSON Schemas copied from events-schemas/.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { generate, generatedFile, schemasDir } from './generate';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

if ((await generate()) !== readFileSync(generatedFile, 'utf8')) {
  throw new Error(
    'src/generated.ts is out of date with events-schemas/: run npm run generate -w @carhook/events',
  );
}
rmSync(dist, { recursive: true, force: true });
rmSync(join(root, 'schemas'), { recursive: true, force: true });
for (const format of ['esm', 'cjs'] as const) {
  await build({
    entryPoints: [join(root, 'src', 'index.ts')],
    outfile: join(dist, format === 'esm' ? 'index.js' : 'index.cjs'),
    bundle: true,
    format,
    platform: 'neutral',
    target: 'es2020',
    external: ['standardwebhooks'],
    logLevel: 'warning',
  });
}
// The workspace root's TypeScript: the package is built from the Carhook repository.
execFileSync(
  join(root, '..', '..', 'node_modules', '.bin', 'tsc'),
  ['-p', join(root, 'tsconfig.build.json')],
  {
    stdio: 'inherit',
  },
);
// The same declarations serve `require`: the CommonJS entry exports the same names.
for (const file of readdirSync(dist).filter((f) => f.endsWith('.d.ts'))) {
  const text = readFileSync(join(dist, file), 'utf8').replaceAll(/from '\.\/(\w+)\.js'/g, "from './$1.cjs'");
  writeFileSync(join(dist, file.replace(/\.d\.ts$/, '.d.cts')), text);
}
mkdirSync(join(root, 'schemas'));
for (const file of readdirSync(schemasDir).filter((f) => f.endsWith('.json'))) {
  copyFileSync(join(schemasDir, file), join(root, 'schemas', file));
}
// stderr: npm pack --json prints the file list on stdout after this script.
console.error(`built ${dist}`);
