/** What every management command shares: the target API, calling it, and printing the answer. */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { type ApiResponse, CliError, request, resolveTarget, type TargetOptions } from './client';

export interface GlobalOptions extends TargetOptions {
  readonly json?: boolean;
}

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

/**
 * Calls a route; `T` is the contract's type of its answer (functions/http/contract.ts), so a command
 * that reads a field the API does not return does not compile.
 */
export async function call<T = unknown>(
  command: Command,
  method: string,
  path: string,
  extra: Parameters<typeof request>[3] = {},
): Promise<ApiResponse & { readonly body: T }> {
  return (await request(resolveTarget(globals(command)), method, path, extra)) as ApiResponse & {
    readonly body: T;
  };
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

/** Every page of a listing (`cursor`): `items` picks the page's array. */
export async function allPages<P extends { readonly cursor?: string | undefined }, T>(
  command: Command,
  path: string,
  items: (page: P) => readonly T[],
  query: Record<string, string | undefined> = {},
): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const r = await call<P>(command, 'GET', path, {
      query: { ...query, limit: '100', ...(cursor ? { cursor } : {}) },
    });
    all.push(...items(r.body));
    cursor = r.body.cursor;
  } while (cursor);
  return all;
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
