/**
 * `npm run schemas`: writes one Draft 4 JSON Schema per event type into events-schemas/, from the
 * zod definitions in functions/core/events/types/. `--check` writes nothing and exits 1 when a
 * committed file differs from the generated one, is missing, or is not a published version.
 * Both modes exit 1 when a published file would change in a breaking way without a new version
 * (functions/core/events/compatibility.ts), compared with the files on disk and with those
 * published at git HEAD: bump `version` in the type's file instead.
 * Older versions' files stay committed for subscribers still on them; they are never rewritten.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { breakingChanges } from '../functions/core/events/compatibility';
import { allSchemaFiles, type JsonSchema } from '../functions/core/events/json-schema';

export const schemasDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'events-schemas');

export type SchemaProblem = {
  readonly kind: 'Drift' | 'Missing' | 'Unknown' | 'Breaking';
  readonly file: string;
  readonly detail: string;
};

const VERSIONED = /^(.+)\.v(\d+)\.json$/;

/** Compares the generated schema files with a directory; pure apart from reading it. */
export const compareWithDirectory = (dir: string, generated = allSchemaFiles()): SchemaProblem[] => {
  const problems: SchemaProblem[] = [];
  const committed = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
  const currentVersion = new Map<string, number>();
  for (const name of generated.keys()) {
    const m = VERSIONED.exec(name);
    if (m?.[1] !== undefined) currentVersion.set(m[1], Number(m[2]));
  }
  for (const [name, text] of generated) {
    const path = join(dir, name);
    if (!existsSync(path)) {
      problems.push({ kind: 'Missing', file: name, detail: 'not generated yet: run npm run schemas' });
      continue;
    }
    const onDisk = readFileSync(path, 'utf8');
    if (onDisk === text) continue;
    let published: JsonSchema;
    try {
      published = JSON.parse(onDisk) as JsonSchema;
    } catch (cause) {
      problems.push({ kind: 'Drift', file: name, detail: `committed file is not JSON: ${String(cause)}` });
      continue;
    }
    const breaking = breakingChanges(published, JSON.parse(text) as JsonSchema);
    if (breaking.length > 0) {
      problems.push({
        kind: 'Breaking',
        file: name,
        detail: `breaking change without a new version (bump it in the type's file): ${breaking
          .map((b) => `${b.path}: ${b.change}`)
          .join('; ')}`,
      });
    } else {
      problems.push({ kind: 'Drift', file: name, detail: 'differs from the code: run npm run schemas' });
    }
  }
  for (const name of committed) {
    if (generated.has(name)) continue;
    const m = VERSIONED.exec(name);
    const current = m?.[1] === undefined ? undefined : currentVersion.get(m[1]);
    // An older version of a current type stays published, frozen.
    if (current !== undefined && Number(m?.[2]) < current) continue;
    problems.push({
      kind: 'Unknown',
      file: name,
      detail: 'no event type of the catalogue has this name and version',
    });
  }
  return problems;
};

/**
 * The same gate against the schemas published in a git revision (default HEAD): a developer who
 * deleted and regenerated a file, or edited a committed file by hand, still cannot ship a breaking
 * change under the same version. Reads git, never changes it. Outside a git work tree, or for
 * files not in that revision yet, there is nothing published to compare with.
 */
export const compareWithRevision = (
  repoDir: string,
  revision = 'HEAD',
  generated = allSchemaFiles(),
): SchemaProblem[] => {
  const git = (args: string[]) =>
    execFileSync('git', ['-C', repoDir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  let listed: string[];
  try {
    listed = git(['ls-tree', '--name-only', `${revision}:events-schemas`]).split('\n');
  } catch {
    return [];
  }
  return compareWithPublished(
    listed.filter((f) => f.endsWith('.json')),
    (name) => git(['show', `${revision}:events-schemas/${name}`]),
    revision,
    generated,
  );
};

/** The compatibility gate against published files, however they are read. */
export const compareWithPublished = (
  names: readonly string[],
  read: (name: string) => string,
  where: string,
  generated = allSchemaFiles(),
): SchemaProblem[] => {
  const problems: SchemaProblem[] = [];
  for (const name of names) {
    const text = generated.get(name);
    if (text === undefined) continue; // older versions and removed types: compareWithDirectory
    let published: JsonSchema;
    try {
      published = JSON.parse(read(name)) as JsonSchema;
    } catch (cause) {
      problems.push({
        kind: 'Drift',
        file: name,
        detail: `${where} has an unreadable file: ${String(cause)}`,
      });
      continue;
    }
    const breaking = breakingChanges(published, JSON.parse(text) as JsonSchema);
    if (breaking.length > 0) {
      problems.push({
        kind: 'Breaking',
        file: name,
        detail: `breaking change against ${where} without a new version: ${breaking
          .map((b) => `${b.path}: ${b.change}`)
          .join('; ')}`,
      });
    }
  }
  return problems;
};

const main = (argv: readonly string[]): number => {
  const check = argv.includes('--check');
  const generated = allSchemaFiles();
  const problems = [
    ...compareWithDirectory(schemasDir, generated),
    ...compareWithRevision(resolve(schemasDir, '..'), 'HEAD', generated),
  ];
  const breaking = problems.filter((p) => p.kind === 'Breaking' || p.kind === 'Unknown');
  if (check || breaking.length > 0) {
    for (const p of check ? problems : breaking) console.error(`${p.kind} ${p.file}: ${p.detail}`);
    if (problems.length === 0) console.log(`events-schemas: ${generated.size} files up to date`);
    return (check ? problems : breaking).length === 0 ? 0 : 1;
  }
  mkdirSync(schemasDir, { recursive: true });
  let written = 0;
  for (const p of problems) {
    const text = generated.get(p.file);
    if (text === undefined) continue;
    writeFileSync(join(schemasDir, p.file), text);
    written += 1;
  }
  console.log(`events-schemas: ${written} written, ${generated.size - written} unchanged`);
  return 0;
};

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
