/** The fault-injection suite's summary table (bench/faults.ts; BENCHMARKS.md shows it for `--faults`). */
import type { FaultCounts } from '../faults';

const n = (x: number): string => x.toLocaleString('en-US');

/** The summary table the run prints. */
/** `chaos`: the chaos rates of the run, as one line. */
export function renderTable(c: FaultCounts, violations: readonly string[], chaos: string): string {
  const rows: [string, string, string][] = [
    [
      'scripted changes made / planned',
      `${n(c.changesMade)} / ${n(c.changesPlanned)}`,
      'a fix needs an active alert, a trip a parked car',
    ],
    [
      'changes seen as exactly one event id',
      `${n(c.changesDetected)} / ${n(c.changesExpected)}`,
      c.changesDetected === c.changesExpected
        ? 'ok (scripted, plus trips before maintenance and due before overdue)'
        : '**violation**',
    ],
    [
      'events published (distinct ids)',
      `${n(c.eventsPublished)} (${n(c.distinctEvents)})`,
      'republished only with the same id',
    ],
    [
      'first-read events (`initial: true`)',
      n(c.initialEvents),
      'current conditions told once by a first read',
    ],
    [
      'reporting state events (`vehicle.reporting.*`)',
      n(c.reportingEvents),
      'a silent vehicle reporting again after a scripted change',
    ],
    [
      'webhooks received (distinct ids, redeliveries)',
      `${n(c.receptions)} (${n(c.distinctWebhookIds)}, ${n(c.redeliveries)})`,
      'every published id delivered',
    ],
    ['signatures that do not verify', n(c.badSignatures), c.badSignatures === 0 ? 'ok' : '**violation**'],
    [
      'workers killed: poll / fan-out / delivery',
      `${n(c.killed.poll)} / ${n(c.killed.fanOut)} / ${n(c.killed.delivery)}`,
      `of ${n(c.pollJobs)} poll and ${n(c.deliveryJobs)} delivery jobs`,
    ],
    [
      'API answers 500 / 429 / 404, timeouts',
      `${n(c.serverErrors)} / ${n(c.tooManyRequests)} / ${n(c.notFound)}, ${n(c.timeouts)}`,
      'injected by the simulator',
    ],
    ['malformed bodies reported', n(c.malformed), 'the resource is read again next cycle'],
    [
      'stale / flapping answers served',
      `${n(c.staleServed)} / ${n(c.flapServed)}`,
      `an older copy of the answer, one list item dropped; ${n(c.staleCounted)} found stale by the polls`,
    ],
    [
      'false events (no change, or a second id for one)',
      n(c.falseEvents),
      c.falseEvents === 0 ? 'ok' : '**violation**',
    ],
    [
      'alert fixes: lag p50 / p95; confirmation requests',
      `${c.fixLagP50S} s / ${c.fixLagP95S} s; ${n(c.confirmationRequests)}`,
      `${n(c.fixes)} scripted fixes, simulated time from the fix to the bus`,
    ],
    ['connections refused by the receiver while down', n(c.receiverRefused), 'retried on the schedule'],
    [
      'token refreshes by the workers',
      n(c.tokenRefreshes),
      'access tokens live 15 simulated minutes; a refresh is killed before it is sent, never after its answer',
    ],
    [
      'quota: most requests in one window / limit',
      `${n(c.maxInWindow)} / ${n(c.quotaLimit)}`,
      c.maxInWindow <= c.quotaLimit ? 'ok' : '**violation**',
    ],
    [
      'revoked user: reauthorization events, requests after',
      `${n(c.reauthorizationEvents)}, ${Number.isNaN(c.revokedUserRequestsAfter) ? 'n/a' : n(c.revokedUserRequestsAfter)}`,
      c.reauthorizationEvents === 1 && c.revokedUserRequestsAfter === 0 ? 'ok' : '**violation**',
    ],
    ['API requests (simulator count)', n(c.apiRequests), ''],
    ['chaos per request (all phases)', chaos, 'plus 429 storms and the receiver outage'],
    ['simulated minutes / wall seconds', `${n(c.simulatedMinutes)} / ${n(c.wallSeconds)}`, ''],
  ];
  const lines = ['| check | value | note |', '|---|---|---|', ...rows.map((r) => `| ${r.join(' | ')} |`)];
  lines.push('', violations.length === 0 ? 'Violations: none.' : `Violations (${violations.length}):`);
  for (const v of violations.slice(0, 20)) lines.push(`- ${v}`);
  if (violations.length > 20) lines.push(`- … and ${violations.length - 20} more`);
  return lines.join('\n');
}
