/**
 * The management commands beyond create/list: one per route, named as in the console (get, edit,
 * enable, disable, deliveries, dead-letters for subscriptions; get, remove for enrollments).
 */

import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import type {
  AttemptPage,
  Backlog,
  DeliveryPage,
  EnableResult,
  EnrollmentDetail,
  RecoverBody,
  RecoverResult,
  Subscription,
  Unenrolled,
  UpdateSubscriptionBody,
} from '../../functions/http/contract';
import { parseDuration } from '../../functions/local/duration';
import { CliError } from './client';
import { allPages, call, globals, list, out, show, str, table } from './common';
import { attemptDetail, backlogLines, enabledLines, subscriptionLines } from './views';

/** `1h` (a duration ago) or an ISO 8601 instant, as the API takes it. */
export function instant(flag: string, value: string): string {
  const ago = parseDuration(flag, value, { minMs: 1, maxMs: 400 * 86_400_000 });
  return ago.ok ? new Date(Date.now() - ago.value).toISOString() : value;
}

const subscriptionPath = (id: string) => `/subscriptions/${encodeURIComponent(id)}`;

/** `null` clears a filter: `--types ''` or `--types all` means every type again. */
function filter(raw: string | undefined): string[] | null | undefined {
  if (raw === undefined) return undefined;
  const items = list(raw) ?? [];
  return items.length === 0 || (items.length === 1 && items[0] === 'all') ? null : items;
}

async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

export function subscriptionCommands(subs: Command): void {
  subs
    .command('get')
    .description('show one subscription (never its secret)')
    .argument('<id>', 'subscription id')
    .action(async (id: string, _o: unknown, command: Command) => {
      const r = await call<Subscription>(command, 'GET', subscriptionPath(id));
      show(command, r.body, () => subscriptionLines(r.body));
    });
  subs
    .command('edit')
    .description('change the endpoint, the filters or the note (the URL is checked again)')
    .argument('<id>', 'subscription id')
    .option('--url <url>', 'the new endpoint URL (as in subscriptions add)')
    .option('--endpoint <url>', 'the same as --url (kept for scripts)')
    .option('--types <list>', "event types, comma-separated ('all' clears the filter)")
    .option('--vehicles <list>', "only these vehicle ids ('all' clears)")
    .option('--enrollments <list>', "only these enrollment ids ('all' clears)")
    .option('--description <text>', "a note ('' clears it)")
    .action(
      async (
        id: string,
        o: {
          url?: string;
          endpoint?: string;
          types?: string;
          vehicles?: string;
          enrollments?: string;
          description?: string;
        },
        command: Command,
      ) => {
        const url = o.url ?? o.endpoint;
        const body: UpdateSubscriptionBody = {
          ...(url !== undefined ? { url } : {}),
          ...(o.types !== undefined ? { eventTypes: filter(o.types) } : {}),
          ...(o.vehicles !== undefined ? { vehicleIds: filter(o.vehicles) } : {}),
          ...(o.enrollments !== undefined ? { enrollmentIds: filter(o.enrollments) } : {}),
          ...(o.description !== undefined
            ? { description: o.description === '' ? null : o.description }
            : {}),
        };
        if (Object.keys(body).length === 0) {
          throw new CliError(
            'Usage',
            'edit: give at least one of --url, --types, --vehicles, --enrollments, --description',
          );
        }
        const r = await call<Subscription>(command, 'PATCH', subscriptionPath(id), { body });
        show(command, r.body, () => subscriptionLines(r.body));
      },
    );
  subs
    .command('backlog')
    .description(
      'what enable would deliver: the events a disabled subscription missed, still in the event log',
    )
    .argument('<id>', 'subscription id')
    .action(async (id: string, _o: unknown, command: Command) => {
      const r = await call<Backlog>(command, 'GET', `${subscriptionPath(id)}/backlog`);
      show(command, r.body, () => backlogLines(r.body, false));
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
      const preview = await call<Backlog>(command, 'GET', `${subscriptionPath(id)}/backlog`);
      if (!json) out(backlogLines(preview.body, o.discard === true));
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
      const r = await call<EnableResult>(command, 'POST', `${subscriptionPath(id)}/enable`, {
        body: { backlog: o.discard ? 'discard' : 'recover' },
      });
      show(command, r.body, () => enabledLines(id, r.body));
    });
  subs
    .command('disable')
    .description(
      "stop delivering to a subscription; what it misses stays in the event log and is delivered when it is enabled (unless enable --discard), as far back as the log's retention",
    )
    .argument('<id>', 'subscription id')
    .action(async (id: string, _o: unknown, command: Command) => {
      const r = await call<Subscription>(command, 'POST', `${subscriptionPath(id)}/disable`);
      show(command, r.body, () => `disabled ${id}`);
    });
  subs
    .command('deliveries')
    .description(
      'the attempt log, newest first: time, event, attempt, outcome, HTTP status or error class, duration, next retry',
    )
    .argument('<id>', 'subscription id')
    .option('--status <status>', 'succeeded or failed')
    .option('--type <type>', 'only this event type')
    .option('--event <id>', 'only the attempts of this event (evt_…)')
    .option('--since <time>', 'ISO 8601, or a duration ago such as 1h')
    .option('--until <time>', 'ISO 8601 end (exclusive)')
    .option('--full', "each attempt's request headers, response headers and body (4 KB), or its error")
    .action(
      async (
        id: string,
        o: { status?: string; type?: string; event?: string; since?: string; until?: string; full?: boolean },
        command: Command,
      ) => {
        const items = await allPages(
          command,
          `${subscriptionPath(id)}/deliveries`,
          (p: AttemptPage) => p.items,
          {
            status: o.status,
            eventType: o.type,
            eventId: o.event,
            since: o.since === undefined ? undefined : instant('--since', o.since),
            until: o.until,
          },
        );
        show(command, { items }, () =>
          o.full
            ? items.map(attemptDetail).join('\n\n') || '(none)'
            : table([
                ['STARTED', 'EVENT', 'TYPE', '#', 'OUTCOME', 'STATUS', 'MS', 'NEXT'],
                ...items.map((a) => [
                  a.startedAt,
                  a.eventId,
                  a.eventType,
                  String(a.attemptNumber),
                  a.outcome,
                  a.statusCode !== undefined ? String(a.statusCode) : str(a.errorClass ?? a.error),
                  String(Math.round(a.durationMs)),
                  str(a.nextAttemptAt),
                ]),
              ]),
        );
      },
    );
  subs
    .command('recover')
    .description(
      'deliver again every delivery that gave up (dead-lettered) since a time, with the same event ids',
    )
    .argument('<id>', 'subscription id')
    .requiredOption('--since <time>', 'ISO 8601, or a duration ago such as 24h')
    .option('--until <time>', 'ISO 8601 end (exclusive)')
    .action(async (id: string, o: { since: string; until?: string }, command: Command) => {
      const r = await call<RecoverResult>(command, 'POST', `${subscriptionPath(id)}/recover`, {
        body: {
          since: instant('--since', o.since),
          ...(o.until ? { until: o.until } : {}),
        } satisfies RecoverBody,
      });
      show(
        command,
        r.body,
        () =>
          `recover ${r.body.recoverId}: ${r.body.deliveries} dead-lettered event(s) queued again (same event ids)`,
      );
    });
  subs
    .command('dead-letters')
    .description('deliveries that gave up after every retry')
    .argument('<id>', 'subscription id')
    .action(async (id: string, _o: unknown, command: Command) => {
      const items = await allPages(
        command,
        `${subscriptionPath(id)}/dead-letters`,
        (p: DeliveryPage) => p.items,
      );
      show(command, { items }, () =>
        table([
          ['DELIVERY', 'EVENT', 'TYPE', 'ATTEMPTS', 'UPDATED'],
          ...items.map((d) => [d.id, d.eventId, d.eventType, String(d.attempts), d.updatedAt]),
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
      const r = await call<EnrollmentDetail>(command, 'GET', `/enrollments/${encodeURIComponent(id)}`);
      const b = r.body;
      show(command, b, () =>
        [
          `enrollment ${b.id} (${b.kind}, ${b.brand}): ${b.status}`,
          table([
            ['VEHICLE', 'VIN', 'POLLING', 'LAST CHANGE'],
            ...b.vehicles.map((v) => [v.id, v.vin, v.paused ? 'paused' : 'active', str(v.lastChangeAt)]),
          ]),
        ].join('\n'),
      );
    });
  enrollments
    .command('remove')
    .description('unenroll: polling stops and tokens are deleted; the event log is kept until it expires')
    .argument('<id>', 'enrollment id')
    .action(async (id: string, _o: unknown, command: Command) => {
      const r = await call<Unenrolled>(command, 'DELETE', `/enrollments/${encodeURIComponent(id)}`);
      show(command, r.body, () => `unenrolled ${id}: ${r.body.vehiclesPaused} vehicle(s) no longer polled`);
    });
}
