/**
 * How the CLI prints the API's answers for a person (`--json` prints them as they are). Every input
 * is a type of the API's contract (functions/http/contract.ts).
 */
import type {
  Attempt,
  AttemptFailure,
  Backlog,
  EnableResult,
  Subscription,
  SubscriptionHealthView,
} from '../../functions/http/contract';
import { str } from './common';

const percent = (rate: number | null) => (rate === null ? '-' : `${Math.round(rate * 1000) / 10} %`);

/** The health in one word and a figure, for tables: `failing (6)`, `healthy 100 %`, `new`. */
export function healthCell(h: SubscriptionHealthView): string {
  if (h.state === 'failing') return `failing (${h.consecutiveFailures})`;
  if (h.state === 'healthy') return `healthy ${percent(h.last24h.successRate)}`;
  return h.state;
}

function failureText(f: AttemptFailure): string {
  return `${f.statusCode !== undefined ? `HTTP ${f.statusCode}` : str(f.error)} (${f.outcome})`;
}

export function subscriptionLines(s: Subscription): string {
  const types = s.eventTypes ? s.eventTypes.join(',') : '*';
  const h = s.health;
  return [
    `subscription ${s.id} → ${s.url}`,
    `  status ${s.status}${s.disabledReason ? ` (${s.disabledReason})` : ''}, types ${types}`,
    ...(s.description ? [`  description ${s.description}`] : []),
    `  health ${h.state}: ${h.consecutiveFailures} consecutive failure(s)${h.failingSince ? ` since ${h.failingSince}` : ''}`,
    `  last success ${h.lastSuccessAt ?? 'never'}; last failure ${
      h.lastFailure ? `${h.lastFailure.at}: ${failureText(h.lastFailure)}` : 'never'
    }`,
    `  last 24 h: ${h.last24h.attempts} attempt(s), ${h.last24h.succeeded} succeeded (${percent(h.last24h.successRate)})${
      h.last24h.complete ? '' : `, counted since ${h.last24h.since}`
    }`,
    `  retrying ${h.retrying.deliveries} delivery(ies)${h.retrying.nextAttemptAt ? `, next at ${h.retrying.nextAttemptAt}` : ''}`,
    ...(h.disablesAt ? [`  disabled by the first failed attempt after ${h.disablesAt}`] : []),
  ].join('\n');
}

/** What enabling would do, before it is done (`GET …/backlog`). */
export function backlogLines(b: Backlog, discard: boolean): string {
  const w = b.window;
  if (!w) return `subscription ${b.subscriptionId} is ${b.status}: no event is waiting for it`;
  const events = `${b.events}${b.more ? '+' : ''}`;
  return [
    `subscription ${b.subscriptionId} is disabled since ${w.disabledAt}`,
    `  ${events} event(s) matching its filters were detected since then: ${
      discard
        ? 'with --discard none of them is delivered'
        : `enabling queues them in detection order, with their own ids${b.more ? ` (the first ${b.limit}; replay the rest)` : ''}`
    }`,
    ...(w.truncated
      ? [
          `  the event log keeps ${w.retentionDays} days: events detected before ${w.keptSince} are gone and cannot be delivered`,
        ]
      : []),
    `  ${b.parked} parked delivery(ies) resume`,
  ].join('\n');
}

export function enabledLines(id: string, b: EnableResult): string {
  const backlog = b.backlog;
  const lines = [`enabled ${id}: ${b.resumed} parked delivery(ies) resumed`];
  if (backlog) {
    lines.push(
      backlog.action === 'discard'
        ? `  ${backlog.discarded} event(s) detected while disabled discarded`
        : `  ${backlog.recovered} event(s) detected while disabled queued for delivery in detection order, with their own ids`,
    );
    if (backlog.truncated)
      lines.push(`  events detected before ${backlog.keptSince} were past the event log's retention: lost`);
    if (backlog.more)
      lines.push(
        `  more remain: carhook subscriptions replay ${id} --since ${str(backlog.nextFrom)} delivers them`,
      );
  }
  return lines.join('\n');
}

const headerLines = (headers: Readonly<Record<string, string>> | undefined) =>
  Object.entries(headers ?? {}).map(([name, value]) => `    ${name}: ${value}`);

/** One attempt in full: the request's headers, then the answer (status, headers, body) or the error. */
export function attemptDetail(a: Attempt): string {
  return [
    `${a.startedAt}  ${a.eventType} ${a.eventId}  attempt ${a.attemptNumber}, ${Math.round(a.durationMs)} ms: ${a.outcome} → ${a.decision}${a.nextAttemptAt ? ` (next at ${a.nextAttemptAt})` : ''}`,
    '  request headers',
    ...headerLines(a.requestHeaders),
    ...(a.statusCode !== undefined
      ? [
          `  response ${a.statusCode}`,
          ...headerLines(a.responseHeaders),
          ...(a.responseExcerpt
            ? [
                `  body${a.responseTruncated ? ' (first 4 KB)' : ''}`,
                ...a.responseExcerpt.split('\n').map((l) => `    ${l}`),
              ]
            : []),
        ]
      : []),
    ...(a.errorClass && a.errorClass !== 'http' ? [`  error (${a.errorClass}): ${str(a.error)}`] : []),
  ].join('\n');
}
