/**
 * The contract through the tools its readers use: the served OpenAPI document passes Redocly's
 * recommended rules, openapi-typescript generates a client from it that compiles (the one
 * examples/api-client holds, with the document, from `npm run openapi`), and the console
 * and the CLI, typed from the same schemas, do not compile when they read an undocumented field or
 * one route's answer as another's. Each runs an external tool or the TypeScript compiler.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClientFiles, DOCUMENT_PATH, TYPES_PATH } from '../../bin/openapi';
import { ROOT } from '../e2e/support';
import { documentedApp } from './document-support';

const run = promisify(execFile);

// biome-ignore lint/suspicious/noExplicitAny: the document is JSON, read freely by the test.
type Json = any;

/** Runs a command; its exit code and output, whatever the code. */
async function exec(file: string, args: readonly string[], cwd = ROOT) {
  try {
    const { stdout, stderr } = await run(file, [...args], { cwd, maxBuffer: 32 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

const TSC = join(ROOT, 'node_modules', '.bin', 'tsc');

/** Typechecks `files` in `dir` with a strict config (optionally extending the console's). */
async function typecheck(
  dir: string,
  files: readonly string[],
  extendsConfig?: string,
  types: readonly string[] = [],
) {
  await writeFile(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      ...(extendsConfig ? { extends: extendsConfig } : {}),
      compilerOptions: {
        strict: true,
        noUncheckedIndexedAccess: true,
        noEmit: true,
        target: 'ES2023',
        lib: ['ES2023', 'DOM'],
        module: 'ESNext',
        moduleResolution: 'Bundler',
        types,
        ...(types.length > 0 ? { typeRoots: [join(ROOT, 'node_modules', '@types')] } : {}),
        skipLibCheck: true,
      },
      files,
    }),
  );
  return exec(TSC, ['-p', join(dir, 'tsconfig.json')], dir);
}

describe('the contract, through the tools', () => {
  let doc: Json;
  let dir: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ doc, close } = await documentedApp());
    dir = await mkdtemp(join(tmpdir(), 'carhook-contract-'));
    await writeFile(join(dir, 'openapi.json'), JSON.stringify(doc, null, 2));
  }, 60_000);
  afterAll(async () => {
    await close();
    await rm(dir, { recursive: true, force: true });
  });

  it("passes Redocly's recommended rules: no error, and only the warnings listed here, each for its reason", {
    timeout: 60_000,
  }, async () => {
    const r = await exec(join(ROOT, 'node_modules', '.bin', 'redocly'), [
      'lint',
      join(dir, 'openapi.json'),
      '--format=json',
    ]);
    const problems = (JSON.parse(r.stdout) as { problems: Json[] }).problems.map(
      (p) => `${p.severity} ${p.ruleId} ${p.location[0].pointer}`,
    );
    expect(problems.filter((p) => p.startsWith('error'))).toEqual([]);
    const listed = {
      // These answer only 2xx: a static page, its assets, liveness and this document.
      'warn operation-4xx-response #/paths/~1/get/responses': 'the console page',
      'warn operation-4xx-response #/paths/~1console~1app.js/get/responses': "the console's script",
      'warn operation-4xx-response #/paths/~1console~1app.css/get/responses': "the console's stylesheet",
      'warn operation-4xx-response #/paths/~1favicon.ico/get/responses': "the console's icon",
      'warn operation-4xx-response #/paths/~1health/get/responses': 'liveness: 200 or 503',
      'warn operation-4xx-response #/paths/~1openapi.json/get/responses': 'this document',
      'warn operation-2xx-response #/paths/~1oauth~1{brand}~1authorize/get/responses':
        "a redirect (302) to the brand's sign-in is its success",
    };
    expect(problems.sort()).toEqual(Object.keys(listed).sort());
  });

  it('generates a typed client with openapi-typescript: named schemas, the routes and the webhooks', {
    timeout: 90_000,
  }, async () => {
    const generator = join(ROOT, 'examples', 'api-client', 'node_modules', '.bin', 'openapi-typescript');
    const generated = await exec(generator, [join(dir, 'openapi.json'), '-o', join(dir, 'carhook-api.d.ts')]);
    expect(generated.code, generated.stderr).toBe(0);
    await writeFile(
      join(dir, 'client.ts'),
      [
        "import type { components, paths, webhooks } from './carhook-api';",
        "type Subscription = components['schemas']['Subscription'];",
        "type Listed = paths['/subscriptions']['get']['responses'][200]['content']['application/json'];",
        "type Fixed = webhooks['vehicle.alert.fixed']['post']['requestBody']['content']['application/json'];",
        'export function read(listed: Listed, fixed: Fixed, delivery: components["schemas"]["Delivery"]) {',
        '  const first: Subscription | undefined = listed.items[0];',
        '  const failures: number | undefined = first?.health.consecutiveFailures;',
        "  const state: 'new' | 'healthy' | 'failing' | 'disabled' | undefined = first?.health.state;",
        "  const type: 'vehicle.alert.fixed' = fixed.type;",
        '  const sequence: number = fixed.data.sequence;',
        '  const event: string = delivery.eventId;',
        '  return { failures, state, type, sequence, event };',
        '}',
        '// The API returns no such field: a client that reads it does not compile.',
        "export const never = (v: components['schemas']['Vehicle']) =>",
        '  // @ts-expect-error lastPolledAt is not documented',
        '  v.lastPolledAt;',
        '',
      ].join('\n'),
    );
    const checked = await typecheck(dir, ['client.ts', 'carhook-api.d.ts']);
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
  });

  it('examples/api-client holds the document served and the client generated from it (npm run openapi)', {
    timeout: 60_000,
  }, async () => {
    const { document, types } = await apiClientFiles();
    // The same document but for the version (the package's here, the runtime's there).
    const written = JSON.parse(document);
    expect({ ...written, info: { ...written.info, version: doc.info.version } }).toEqual(doc);
    expect(await readFile(DOCUMENT_PATH, 'utf8'), 'run npm run openapi').toBe(document);
    expect(await readFile(TYPES_PATH, 'utf8'), 'run npm run openapi').toBe(types);
  });

  it('the console and the CLI are typed by the contract: an undocumented field does not compile', {
    timeout: 60_000,
  }, async () => {
    const contract = join(ROOT, 'functions', 'http', 'contract');
    const probe = (read: string) =>
      [
        `import type { Attempt, Subscription, Vehicle } from '${contract}';`,
        'export const read = (s: Subscription, a: Attempt, v: Vehicle) =>',
        `  ${read};`,
        '',
      ].join('\n');
    await writeFile(join(dir, 'documented.ts'), probe('[s.health.consecutiveFailures, a.durationMs, v.vin]'));
    await writeFile(join(dir, 'undocumented.ts'), probe('[s.health.failures, v.lastPolledAt]'));
    const consoleConfig = join(ROOT, 'console', 'tsconfig.json');
    const ok = await typecheck(dir, ['documented.ts'], consoleConfig);
    expect(ok.code, ok.stdout).toBe(0);
    const refused = await typecheck(dir, ['undocumented.ts'], consoleConfig);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toContain("Property 'failures' does not exist");
    expect(refused.stdout).toContain("Property 'lastPolledAt' does not exist");
    // The answer's type follows from the route called: one route's answer cannot be read as another's.
    const api = join(ROOT, 'console', 'src', 'api');
    const cli = join(ROOT, 'bin', 'cli', 'common');
    const routed = (read: string) =>
      [
        `import { api } from '${api}';`,
        `import { call } from '${cli}';`,
        'export async function read(command: Parameters<typeof call>[0]) {',
        `  return ${read};`,
        '}',
        '',
      ].join('\n');
    await writeFile(
      join(dir, 'routed.ts'),
      routed(
        "[(await api('GET /vehicles/{id}', { params: { id: 'v' } })).vehicle.paused, (await call(command, 'GET /subscriptions/{id}/backlog', { params: { id: 's' } })).body.parked]",
      ),
    );
    await writeFile(
      join(dir, 'misrouted.ts'),
      routed(
        "[(await api('GET /enrollments/{id}', { params: { id: 'e' } })).paused, (await call(command, 'GET /subscriptions/{id}/backlog', { params: { id: 's' } })).body.health, await api('GET /events/{id}', { params: { vin: 'x' } }), await api('GET /subscriptions/{id}')]",
      ),
    );
    const routedOk = await typecheck(dir, ['routed.ts'], consoleConfig, ['node']);
    expect(routedOk.code, routedOk.stdout).toBe(0);
    const misrouted = await typecheck(dir, ['misrouted.ts'], consoleConfig, ['node']);
    expect(misrouted.code).not.toBe(0);
    expect(misrouted.stdout).toMatch(/Property 'paused' does not exist on type '\{[^']*vehicles:/);
    expect(misrouted.stdout).toMatch(/Property 'health' does not exist on type '\{[^']*parked:/);
    expect(misrouted.stdout).toContain("'vin' does not exist in type"); // a parameter the path lacks
    expect(misrouted.stdout).toContain('Expected 2 arguments, but got 1'); // the path's {id} not given
    // Neither reads API answers as untyped JSON (the one way around the types).
    const loose = await exec('grep', [
      '-rlE',
      String.raw`\bJson\b|Record<string, unknown>`,
      'console/src',
      'bin/cli',
    ]);
    expect(loose.stdout.split('\n').filter((f) => f !== '' && !ALLOWED_LOOSE.includes(f))).toEqual([]);
  });
});

/** Files that handle JSON which is not an API answer (a saved webhook request, the OpenAPI document). */
const ALLOWED_LOOSE = ['bin/cli/verify.ts', 'console/src/pages/reference.tsx'];
