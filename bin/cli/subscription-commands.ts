/**
 * `carhook subscriptions …`: one command per subscription management route, named as in the
 * console (add, list, get, edit, enable, disable, remove, test, rotate, deliveries, dead-letters,
 * replay).
 */
import type { Command } from 'commander';
import type {
  CreateSubscriptionBody,
  ReplayResult,
  SampleBody,
  SecretRotated,
  SubscriptionCreated,
  SubscriptionPage,
  TestDelivery,
} from '../../functions/http/contract';
import { parseDuration } from '../../functions/local/duration';
import { CliError } from './client';
import { allPages, call, globals, list, REPLAY_POLL_MS, show, str, table } from './common';
import { subscriptionCommands } from './manage';
import { progressBar } from './progress';
import { attemptLines, waitForReplay } from './replay-wait';
import { healthCell } from './views';

export function addSubscriptionCommands(program: Command): void {
  const subs = program.command('subscriptions').description('webhook subscriptions');
  subscriptionCommands(subs);
  subs
    .command('add')
    .description('subscribe an endpoint; prints its signing secret (shown once)')
    .requiredOption('--url <url>', 'the endpoint (https; http only for loopback locally)')
    .option('--types <list>', 'event types, comma-separated (default: all)')
    .option('--vehicles <list>', 'only these vehicle ids')
    .option('--enrollments <list>', 'only these enrollment ids')
    .option('--description <text>', 'a note')
    .action(
      async (
        o: { url: string; types?: string; vehicles?: string; enrollments?: string; description?: string },
        command: Command,
      ) => {
        // An option not given is undefined, left out of the JSON body.
        const body = {
          url: o.url,
          eventTypes: list(o.types || undefined),
          vehicleIds: list(o.vehicles || undefined),
          enrollmentIds: list(o.enrollments || undefined),
          description: o.description || undefined,
        } satisfies CreateSubscriptionBody;
        // --url here is the endpoint; the API address is the root's --url or CARHOOK_URL.
        const r = await call<SubscriptionCreated>(command, 'POST', '/subscriptions', { body });
        const b = r.body;
        show(
          command,
          b,
          () =>
            `subscription ${b.id} → ${b.url}\nsecret ${b.secret}   (shown once: keep it to verify signatures)`,
        );
      },
    );
  subs
    .command('list')
    .description('list subscriptions')
    .action(async (_o: unknown, command: Command) => {
      const items = await allPages(command, '/subscriptions', (p: SubscriptionPage) => p.items);
      show(command, { items }, () =>
        table([
          ['ID', 'STATUS', 'HEALTH', 'URL', 'TYPES'],
          ...items.map((s) => [
            s.id,
            s.status,
            healthCell(s.health),
            s.url,
            s.eventTypes ? s.eventTypes.join(',') : '*',
          ]),
        ]),
      );
    });
  subs
    .command('remove')
    .description('delete a subscription')
    .argument('<id>', 'subscription id')
    .action(async (id: string, _o: unknown, command: Command) => {
      await call(command, 'DELETE', `/subscriptions/${encodeURIComponent(id)}`);
      show(command, { id, removed: true }, () => `removed ${id}`);
    });
  subs
    .command('test')
    .description('send a signed webhook.test event now and show the attempt')
    .argument('<id>', 'subscription id')
    .action(async (id: string, _o: unknown, command: Command) => {
      const r = await call<TestDelivery>(command, 'POST', `/subscriptions/${encodeURIComponent(id)}/test`);
      const attempt = r.body.attempt;
      show(
        command,
        r.body,
        () =>
          `test delivery: ${attempt.outcome}${attempt.statusCode !== undefined ? ` (HTTP ${attempt.statusCode})` : ''}${attempt.error ? ` ${attempt.error}` : ''} in ${Math.round(attempt.durationMs)} ms`,
      );
    });
  subs
    .command('sample')
    .description(
      'send a sample of an event type now (marked sample: true), signed like any delivery, and show the attempt',
    )
    .argument('<id>', 'subscription id')
    .requiredOption('--type <type>', 'the event type (carhook events types)')
    .action(async (id: string, o: { type: string }, command: Command) => {
      const r = await call<TestDelivery>(command, 'POST', `/subscriptions/${encodeURIComponent(id)}/sample`, {
        body: { type: o.type } satisfies SampleBody,
      });
      const a = r.body.attempt;
      show(
        command,
        r.body,
        () =>
          `sample ${o.type} ${r.body.eventId}: ${a.outcome}${a.statusCode !== undefined ? ` (HTTP ${a.statusCode})` : ''}${a.error ? ` ${a.error}` : ''} in ${Math.round(a.durationMs)} ms`,
      );
    });
  subs
    .command('rotate')
    .description('rotate the signing secret (the previous one stays valid for 24 h)')
    .argument('<id>', 'subscription id')
    .action(async (id: string, _o: unknown, command: Command) => {
      const r = await call<SecretRotated>(
        command,
        'POST',
        `/subscriptions/${encodeURIComponent(id)}/rotate-secret`,
      );
      const b = r.body;
      show(
        command,
        b,
        () => `new secret ${b.secret}   (previous one valid until ${b.previousSecretExpiresAt})`,
      );
    });
  subs
    .command('replay')
    .description(
      'deliver past events again to a subscription (same event ids), and follow the deliveries until each has an outcome',
    )
    .argument('<id>', 'subscription id')
    .option('--since <time>', 'ISO 8601 start, or a duration ago such as 1h (needed unless --events)')
    .option('--until <time>', 'ISO 8601 end (exclusive)')
    .option('--types <list>', 'only these event types')
    .option('--events <ids>', 'these event ids, comma-separated (read from the log by id: no --since needed)')
    .option('--no-wait', 'return once the replay is queued (deliveries go on in the background)')
    .option('--timeout <duration>', 'stop waiting after this long, e.g. 30s, 10m (default 10m)', '10m')
    .action(
      async (
        id: string,
        o: {
          since?: string;
          until?: string;
          types?: string;
          events?: string;
          wait: boolean;
          timeout: string;
        },
        command: Command,
      ) => {
        if (o.since === undefined && !o.events)
          throw new CliError('Usage', '--since is required (or --events with the event ids to replay)');
        const ago =
          o.since === undefined
            ? undefined
            : parseDuration('--since', o.since, { minMs: 1, maxMs: 400 * 86_400_000 });
        const since = ago?.ok ? new Date(Date.now() - ago.value).toISOString() : o.since;
        const timeout = parseDuration('--timeout', o.timeout, { minMs: 1, maxMs: 7 * 86_400_000 });
        if (!timeout.ok) throw new CliError('Usage', timeout.message);
        const path = `/subscriptions/${encodeURIComponent(id)}`;
        const r = await call<ReplayResult>(command, 'POST', `${path}/replay`, {
          body: {
            since,
            until: o.until || undefined,
            eventTypes: list(o.types || undefined),
            eventIds: list(o.events || undefined),
          },
        });
        const b = r.body;
        const replayId = b.replayId;
        const skipped = b.skipped;
        const skippedLines = skipped.map((x) => `  ${x.eventId} not sent: ${x.reason}`);
        const nothing =
          b.events === 0 && skipped.length === 0
            ? [
                `  nothing matched: ${str(b.scanned)} event(s) detected in the range, none of them matching the subscription's filters${o.types ? ' and --types' : ''}`,
              ]
            : [];
        if (!o.wait || b.events === 0) {
          show(command, b, () =>
            [
              `replay ${replayId}: ${str(b.events)} event(s) queued for delivery (same event ids)`,
              ...skippedLines,
              ...nothing,
            ].join('\n'),
          );
          if (b.events === 0) process.exitCode = 1;
          return;
        }
        const eventIds = b.eventIds;
        const json = globals(command).json === true;
        // --json: stdout carries only the summary, stderr stays quiet too (scripts read both).
        const bar = progressBar(eventIds.length, 'delivering', json ? { write: () => true } : process.stderr);
        let shown = 0;
        const result = await waitForReplay({
          subscriptionId: id,
          replayId,
          eventIds,
          ...(r.serverTime !== undefined ? { acceptedAt: r.serverTime } : {}),
          timeoutMs: timeout.value,
          intervalMs: REPLAY_POLL_MS,
          listAttempts: async (cursor) => {
            const page = await call(command, 'GET', `${path}/deliveries`, {
              query: { limit: '100', ...(cursor ? { cursor } : {}) },
            });
            return {
              ...attemptLines(page.body),
              ...(page.serverTime !== undefined ? { serverTime: page.serverTime } : {}),
            };
          },
          onProgress: (settled) => {
            bar.tick(settled - shown);
            shown = settled;
          },
        });
        bar.done();
        show(command, { replayId, events: eventIds.length, eventIds, skipped, ...result }, () =>
          [
            ...skippedLines,
            `replay ${replayId}: delivered ${result.delivered.length}, failed ${result.failed.length}` +
              (result.pending.length > 0
                ? `, still pending ${result.pending.length} after ${o.timeout} (they keep being retried in the background)`
                : ''),
            ...result.failed.map(
              (f) =>
                `  ${f.eventId}: ${f.decision === 'disabled' ? 'subscription disabled' : 'dead-lettered'} after ${f.outcome}${f.statusCode !== undefined ? ` (HTTP ${f.statusCode})` : ''}${f.error ? ` ${f.error}` : ''}`,
            ),
          ].join('\n'),
        );
        if (result.failed.length > 0 || result.pending.length > 0) process.exitCode = 1;
      },
    );
}
