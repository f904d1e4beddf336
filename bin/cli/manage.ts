/**
 * The management commands beyond create/list: one per route, named as in the console (get, edit,
 * enable, disable, deliveries, dead-letters for subscriptions; get, remove for enrollments).
 */

import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { CliError } from './client';
import { allPages, call, globals, type Json, list, out, show, str, table } from './common';

const subscriptionPath = (id: string) => `/subscriptions/${encodeURIComponent(id)}`;

/** `null` clears a filter: `--types ''` or `--types all` means every type again. */
function filter(raw: string | undefined): string[] | null | undefined {
  if (raw === undefined) return undefined;
  const items = list(raw) ?? [];
  return items.length === 0 || (items.length === 1 && items[0] === 'all') ? null : items;
}

const percent = (rate: unknown) => (typeof rate === 'number' ? `${Math.round(rate * 1000) / 10} %` : '-');

/** The health in one word and a figure, for tables: `failing (6)`, `healthy 100 %`, `new`. */
export function healthCell(health: Json | undefined): string {
  const h = health ?? {};
  const last24h = (h.last24h ?? {}) as Json;
  if (h.state === 'failing') return `failing (${str(h.consecutiveFailures)})`;
  if (h.state === 'healthy') return `healthy ${percent(last24h.successRate)}`.trim();
  return str(h.state);
}

function failureText(f: Json): string {
  return `${f.statusCode !== undefined ? `HTTP ${str(f.statusCode)}` : str(f.error)} (${str(f.outcome)})`;
}

function subscriptionLine(s: Json): string {
  const types = Array.isArray(s.eventTypes) ? (s.eventTypes as string[]).join(',') : '*';
  const h = (s.health ?? {}) as Json;
  const last24h = (h.last24h ?? {}) as Json;
  const retrying = (h.retrying ?? {}) as Json;
  const lastFailure = h.lastFailure as Json | undefined;
  return [
    `subscription ${str(s.id)} → ${str(s.url)}`,
    `  status ${str(s.status)}${s.disabledReason ? ` (${str(s.disabledReason)})` : ''}, types ${types}`,
    `  health ${str(h.state)}: ${str(h.consecutiveFailures)} consecutive failure(s)${h.failingSince ? ` since ${str(h.failingSince)}` : ''}`,
    `  last success ${h.lastSuccessAt ? str(h.lastSuccessAt) : 'never'}; last failure ${
      lastFailure ? `${str(lastFailure.at)}: ${failureText(lastFailure)}` : 'never'
    }`,
    `  last 24 h: ${str(last24h.attempts)} attempt(s), ${str(last24h.succeeded)} succeeded (${percent(last24h.successRate)})${
      last24h.complete === false ? `, counted since ${str(last24h.since)}` : ''
    }`,
    `  retrying ${str(retrying.deliveries)} delivery(ies)${retrying.nextAttemptAt ? `, next at ${str(retrying.nextAttemptAt)}` : ''}`,
    ...(h.disablesAt ? [`  disabled by the first failed attempt after ${str(h.disablesAt)}`] : []),
  ].join('\n');
}

async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

/** What enabling would do, before it is done (`GET …/backlog`). */
export function backlogLines(b: Json, discard: boolean): string {
  const w = b.window as Json | undefined;
  if (!w) return `subscription ${str(b.subscriptionId)} is ${str(b.status)}: no event is waiting for it`;
  const events = `${str(b.events)}${b.more ? '+' : ''}`;
  return [
    `subscription ${str(b.subscriptionId)} is disabled since ${str(w.disabledAt)}`,
    `  ${events} event(s) matching its filters were detected since then: ${
      discard
        ? 'with --discard none of them is delivered'
        : `enabling queues them in detection order, with their own ids${b.more ? ` (the first ${str(b.limit)}; replay the rest)` : ''}`
    }`,
    ...(w.truncated
      ? [
          `  the event log keeps ${str(w.retentionDays)} days: events detected before ${str(w.keptSince)} are gone and cannot be delivered`,
        ]
      : []),
    `  ${str(b.parked)} parked delivery(ies) resume`,
  ].join('\n');
}

function enabledLines(id: string, b: Json): string {
  const backlog = b.backlog as Json | undefined;
  const lines = [`enabled ${id}: ${str(b.resumed)} parked delivery(ies) resumed`];
  if (backlog) {
    lines.push(
      backlog.action === 'discard'
        ? `  ${str(backlog.discarded)} event(s) detected while disabled discarded`
        : `  ${str(backlog.recovered)} event(s) detected while disabled queued for delivery in detection order, with their own ids`,
    );
    if (backlog.truncated)
      lines.push(
        `  events detected before ${str(backlog.keptSince)} were past the event log's retention: lost`,
      );
    if (backlog.more)
      lines.push(
        `  more remain: carhook subscriptions replay ${id} --since ${str(backlog.nextFrom)} delivers them`,
      );
  }
  return lines.join('\n');
}

export function subscriptionCommands(subs: Command): void {
  subs
    .command('get')
    .description('show one subscription (never its secret)')
    .argument('<id>', 'subscription id')
    .action(async (id: string, _o: unknown, command: Command) => {
      const r = await call(command, 'GET', subscriptionPath(id));
      show(command, r.body, () => subscriptionLine(r.body as Json));
    });
  subs
    .command('edit')
    .description('change the endpoint, the filters or the note (the URL is checked again)')
    .argument('<id>', 'subscription id')
    .option('--endpoint <url>', 'the new endpoint URL')
    .option('--types <list>', "event types, comma-separated ('all' clears the filter)")
    .option('--vehicles <list>', "only these vehicle ids ('all' clears)")
    .option('--enrollments <list>', "only these enrollment ids ('all' clears)")
    .option('--description <text>', "a note ('' clears it)")
    .action(
      async (
        id: string,
        o: {
          endpoint?: string;
          types?: string;
          vehicles?: string;
          enrollments?: string;
          description?: string;
        },
        command: Command,
      ) => {
        const body: Json = {};
        if (o.endpoint !== undefined) body.url = o.endpoint;
        if (o.types !== undefined) body.eventTypes = filter(o.types);
        if (o.vehicles !== undefined) body.vehicleIds = filter(o.vehicles);
        if (o.enrollments !== undefined) body.enrollmentIds = filter(o.enrollments);
        if (o.description !== undefined) body.description = o.description === '' ? null : o.description;
        if (Object.keys(body).length === 0) {
          throw new CliError(
            'Usage',
            'edit: give at least one of --endpoint, --types, --vehicles, --enrollments, --description',
          );
        }
        const r = await call(command, 'PATCH', subscriptionPath(id), { body });
        show(command, r.body, () => subscriptionLine(r.body as Json));
      },
    );
  subs
    .command('backlog')
    .description(
      'what enable would deliver: the events a disabled subscription missed, still in the event log',
    )
    .argument('<id>', 'subscription id')
    .action(async (id: string, _o: unknown, command: Command) => {
      const r = await call(command, 'GET', `${subscriptionPath(id)}/backlog`);
      show(command, r.body, () => backlogLines(r.body as Json, false));
    });
  subs
    .command('enable')
    .description(
      'enable a subscription: the events it missed while disabled are delivered from the event log, in order, with their own ids (shown first; --discard drops them); parked deliveries resume',
    )
    .argument('<id>', 'subscription id')
    .option('--discard', 'deliver none of the events detected while it was disabled')
    .option('--yes', 'do not ask for confirmation (asked only on a terminal)')
    .action(async (id: string, o: { discard?: boolean; yes?: boolean }, command: Command) => {
      const json = globals(command).json === true;
      const preview = await call(command, 'GET', `${subscriptionPath(id)}/backlog`);
      if (!json) out(backlogLines(preview.body as Json, o.discard === true));
      if (!json && !o.yes && process.stdin.isTTY) {
        const answer = await ask(
          o.discard ? 'Enable and discard them? [y/N] ' : 'Enable and deliver them? [y/N] ',
        );
        if (!/^y(es)?$/i.test(answer.trim())) {
          out('not enabled');
          process.exitCode = 1;
          return;
        }
      }
      const r = await call(command, 'POST', `${subscriptionPath(id)}/enable`, {
        body: { backlog: o.discard ? 'discard' : 'recover' },
      });
      const b = r.body as Json;
      show(command, b, () => enabledLines(id, b));
    });
  subs
    .command('disable')
    .description(
      "stop delivering to a subscription; what it misses stays in the event log and is delivered when it is enabled (unless enable --discard), as far back as the log's retention",
    )
    .argument('<id>', 'subscription id')
    .action(async (id: string, _o: unknown, command: Command) => {
      const r = await call(command, 'POST', `${subscriptionPath(id)}/disable`);
      show(command, r.body, () => `disabled ${id}`);
    });
  subs
    .command('deliveries')
    .description(
      'the attempt log, newest first: time, event, attempt, outcome, HTTP status, duration, next retry',
    )
    .argument('<id>', 'subscription id')
    .action(async (id: string, _o: unknown, command: Command) => {
      const items = await allPages(command, `${subscriptionPath(id)}/deliveries`, 'items');
      show(command, { items }, () =>
        table([
          ['STARTED', 'EVENT', 'TYPE', '#', 'OUTCOME', 'STATUS', 'MS', 'NEXT'],
          ...items.map((a) => [
            str(a.startedAt),
            str(a.eventId),
            str(a.eventType),
            str(a.attemptNumber),
            str(a.outcome),
            str(a.statusCode ?? a.error),
            typeof a.durationMs === 'number' ? String(Math.round(a.durationMs)) : '-',
            str(a.nextAttemptAt),
          ]),
        ]),
      );
    });
  subs
    .command('dead-letters')
    .description('deliveries that gave up after every retry')
    .argument('<id>', 'subscription id')
    .action(async (id: string, _o: unknown, command: Command) => {
      const items = await allPages(command, `${subscriptionPath(id)}/dead-letters`, 'items');
      show(command, { items }, () =>
        table([
          ['DELIVERY', 'EVENT', 'TYPE', 'ATTEMPTS', 'UPDATED'],
          ...items.map((d) => [
            str(d.id),
            str(d.eventId),
            str(d.eventType),
            str(d.attempts),
            str(d.updatedAt),
          ]),
        ]),
      );
    });
}

export function enrollmentCommands(enrollments: Command): void {
  enrollments
    .command('get')
    .description('show one enrollment and its vehicles')
    .argument('<id>', 'enrollment id')
    .action(async (id: string, _o: unknown, command: Command) => {
      const r = await call(command, 'GET', `/enrollments/${encodeURIComponent(id)}`);
      const b = r.body as Json;
      const vehicles = Array.isArray(b.vehicles) ? (b.vehicles as Json[]) : [];
      show(command, b, () =>
        [
          `enrollment ${str(b.id)} (${str(b.kind)}, ${str(b.brand)}): ${str(b.status)}`,
          table([
            ['VEHICLE', 'VIN', 'POLLING', 'LAST CHANGE'],
            ...vehicles.map((v) => [
              str(v.id),
              str(v.vin),
              v.paused ? 'paused' : 'active',
              str(v.lastChangeAt),
            ]),
          ]),
        ].join('\n'),
      );
    });
  enrollments
    .command('remove')
    .description('unenroll: polling stops and tokens are deleted; the event log is kept until it expires')
    .argument('<id>', 'enrollment id')
    .action(async (id: string, _o: unknown, command: Command) => {
      const r = await call(command, 'DELETE', `/enrollments/${encodeURIComponent(id)}`);
      const b = r.body as Json;
      show(command, b, () => `unenrolled ${id}: ${str(b.vehiclesPaused)} vehicle(s) no longer polled`);
    });
}
