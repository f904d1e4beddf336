/** What every management command shares: the target API, calling it, and printing the answer. */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { CliError, request, resolveTarget, type TargetOptions } from './client';

export interface GlobalOptions extends TargetOptions {
  readonly json?: boolean;
}

export type Json = Record<string, unknown>;

/** How often `subscriptions replay` reads the attempt log while it waits. */
export const REPLAY_POLL_MS = 1000;

export const out = (text: string) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);

/** The root's options (API address, auth) and `--json` wherever it was given. */
export function globals(command: Command): GlobalOptions {
  let root = command;
  while (root.parent) root = root.parent;
  const own = command.opts<{ json?: boolean }>();
  const rootOptions = root.opts<GlobalOptions>();
  return { ...rootOptions, json: rootOptions.json === true || own.json === true };
}

export async function call(
  command: Command,
  method: string,
  path: string,
  extra: Parameters<typeof request>[3] = {},
) {
  return request(resolveTarget(globals(command)), method, path, extra);
}

export function show(command: Command, body: unknown, human: () => string): void {
  out(globals(command).json ? JSON.stringify(body, null, 2) : human());
}

export const list = (raw: string | undefined): string[] | undefined =>
  raw === undefined
    ? undefined
    : raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');

export function table(rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return '(none)';
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export const str = (v: unknown): string =>
  v === undefined || v === null ? '-' : typeof v === 'string' ? v : JSON.stringify(v);

/** Every page of a listing (`cursor`), `key` the array field. */
export async function allPages(
  command: Command,
  path: string,
  key: string,
  query: Record<string, string | undefined> = {},
) {
  const items: Json[] = [];
  let cursor: string | undefined;
  do {
    const r = await call(command, 'GET', path, {
      query: { ...query, limit: '100', ...(cursor ? { cursor } : {}) },
    });
    const body = r.body as Record<string, unknown>;
    items.push(...((body[key] as Json[] | undefined) ?? []));
    cursor = typeof body.cursor === 'string' ? body.cursor : undefined;
  } while (cursor);
  return items;
}

/** The text of a file named by a flag; a file that cannot be read is a usage error naming the flag. */
export async function readFileOption(flag: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(
      'Usage',
      `${flag}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}
