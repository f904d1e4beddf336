/**
 * The management commands beyond create/list: one per route, named as in the console (get, edit,
 * enable, disable, deliveries, dead-letters for subscriptions; get, remove for enrollments).
 */
import type { Command } from 'commander';
import { CliError } from './client';
import { allPages, call, type Json, list, show, str, table } from './common';

const subscriptionPath = (id: string) => `/subscriptions/${encodeURIComponent(id)}`;

/** `null` clears a filter: `--types ''` or `--types all` means every type again. */
function filter(raw: string | undefined): string[] | null | undefined {
  if (raw === undefined) return undefined;
  const items = list(raw) ?? [];
  return items.length === 0 || (items.length === 1 && items[0] === 'all') ? null : items;
}

function subscriptionLine(s: Json): string {
  const types = Array.isArray(s.eventTypes) ? (s.eventTypes as string[]).join(',') : '*';
  const health = (s.health ?? {}) as Json;
  return [
    `subscription ${str(s.id)} → ${str(s.url)}`,
    `  status ${str(s.status)}${s.disabledReason ? ` (${str(s.disabledReason)})` : ''}, types ${types}`,
    `  consecutive failures ${str(health.consecutiveFailures ?? 0)}, last success ${str(health.lastSuccessAt)}`,
  ].join('\n');
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
    .command('enable')
    .description('enable a disabled subscription; its parked deliveries resume')
    .argument('<id>', 'subscription id')
    .action(async (id: string, _o: unknown, command: Command) => {
      const r = await call(command, 'POST', `${subscriptionPath(id)}/enable`);
      const b = r.body as Json;
      show(command, b, () => `enabled ${id}: ${str(b.resumed)} parked delivery(ies) resumed`);
    });
  subs
    .command('disable')
    .description('stop delivering to a subscription; new deliveries wait until it is enabled')
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
