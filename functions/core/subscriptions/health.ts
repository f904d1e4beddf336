import type { DeliveryStore } from './ports';
import type { AttemptRecord, FailureNote, SubscriptionRecord } from './records';

/**
 * A subscription's health as the API shows it, read where each fact is known:
 *
 * - the failing streak (`consecutiveFailures`, `failingSince`, the last failure with its status or
 *   error) from the subscription record: every failed attempt writes it, at once, so a failing
 *   endpoint shows as failing after one attempt;
 * - the last success and the last 24 hours from the attempt log (a success in steady state writes
 *   nothing on the subscription, but every attempt has its log line);
 * - whether it is being retried from its pending deliveries.
 *
 * When the log's newest success is newer than the stored last failure, the endpoint is healthy
 * whatever the record says (a success seen by a process that did not know of the streak leaves
 * the record's streak to be cleared by the next one).
 */
export const HEALTH_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Attempt log lines read for the window, at most: beyond, `complete` is false and `since` says how far. */
export const HEALTH_MAX_ATTEMPTS = 1000;
/** Pending deliveries looked at for `retrying`, at most. */
export const HEALTH_MAX_PENDING = 100;

export interface HealthView {
  /** `new`: no attempt yet; `failing`: the last attempt failed; `disabled`: not delivered to. */
  readonly state: 'new' | 'healthy' | 'failing' | 'disabled';
  readonly consecutiveFailures: number;
  /** The first failure of the current streak. */
  readonly failingSince?: string;
  readonly lastSuccessAt?: string;
  readonly lastFailure?: FailureNote;
  readonly last24h: {
    /** The window's start: 24 h ago, or the oldest attempt read when more than the limit happened. */
    readonly since: string;
    readonly attempts: number;
    readonly succeeded: number;
    readonly failed: number;
    /** succeeded / attempts; null without attempts. */
    readonly successRate: number | null;
    /** False when the window held more attempts than were read (`since` is then later than 24 h ago). */
    readonly complete: boolean;
  };
  /** Deliveries waiting for a retry (pending after at least one attempt) and the next one's time. */
  readonly retrying: { readonly deliveries: number; readonly nextAttemptAt?: string };
  /**
   * When the failing streak reaches the disable threshold (5 days under the standard schedule): the
   * first failed attempt from then on disables the subscription. Only while active and failing.
   */
  readonly disablesAt?: string;
}

const later = (a: string | undefined, b: string | undefined) =>
  a === undefined ? b : b === undefined ? a : Date.parse(a) >= Date.parse(b) ? a : b;

function noteOf(a: AttemptRecord): FailureNote {
  return {
    at: a.startedAt,
    outcome: a.outcome,
    ...(a.statusCode !== undefined ? { statusCode: a.statusCode } : {}),
    ...(a.error !== undefined ? { error: a.error } : {}),
  };
}

/** Pure: the view from the record, the attempts read (newest first) and the pending deliveries. */
export function summarizeHealth(input: {
  readonly subscription: Pick<SubscriptionRecord, 'status' | 'health'>;
  /** Newest first, as the log lists them. */
  readonly attempts: readonly AttemptRecord[];
  /** Whether every attempt of the window was read. */
  readonly complete: boolean;
  readonly pending: readonly { readonly attempts: number; readonly nextAttemptAt: string }[];
  readonly now: number;
  readonly disableAfterFailingMs: number;
}): HealthView {
  const { subscription: s, attempts, now } = input;
  const windowStart = now - HEALTH_WINDOW_MS;
  const inWindow = attempts.filter((a) => Date.parse(a.startedAt) >= windowStart);
  const succeeded = inWindow.filter((a) => a.outcome === 'success').length;
  const newestSuccess = attempts.find((a) => a.outcome === 'success')?.startedAt;
  const newestFailure = attempts.find((a) => a.outcome !== 'success');
  const lastSuccessAt = later(s.health.lastSuccessAt, newestSuccess);
  const stored = s.health.lastFailure;
  const lastFailure =
    newestFailure && (!stored || Date.parse(newestFailure.startedAt) > Date.parse(stored.at))
      ? noteOf(newestFailure)
      : stored;
  const recovered =
    lastSuccessAt !== undefined &&
    (lastFailure === undefined || Date.parse(lastSuccessAt) > Date.parse(lastFailure.at));
  // The record counts failures as they are written; the log counts those it holds since the last
  // success: the larger is the truer (a log page may not reach back to the streak's start).
  const logged = attempts.findIndex((a) => a.outcome === 'success');
  const loggedStreak = logged === -1 ? attempts.length : logged;
  const consecutiveFailures = recovered ? 0 : Math.max(s.health.consecutiveFailures ?? 0, loggedStreak);
  const failingSince = recovered ? undefined : (s.health.firstFailureAt ?? lastFailure?.at);
  const retries = input.pending.filter((d) => d.attempts > 0);
  const nextAttemptAt = retries
    .map((d) => d.nextAttemptAt)
    .sort()
    .at(0);
  const oldestRead = attempts.at(-1)?.startedAt;
  const since =
    input.complete || oldestRead === undefined
      ? new Date(windowStart).toISOString()
      : new Date(Math.max(windowStart, Date.parse(oldestRead))).toISOString();
  const state =
    s.status === 'disabled'
      ? 'disabled'
      : consecutiveFailures > 0
        ? 'failing'
        : lastSuccessAt === undefined && lastFailure === undefined
          ? 'new'
          : 'healthy';
  return {
    state,
    consecutiveFailures,
    ...(failingSince !== undefined && consecutiveFailures > 0 ? { failingSince } : {}),
    ...(lastSuccessAt !== undefined ? { lastSuccessAt } : {}),
    ...(lastFailure !== undefined ? { lastFailure } : {}),
    last24h: {
      since,
      attempts: inWindow.length,
      succeeded,
      failed: inWindow.length - succeeded,
      successRate: inWindow.length === 0 ? null : Math.round((succeeded / inWindow.length) * 10_000) / 10_000,
      complete: input.complete,
    },
    retrying: { deliveries: retries.length, ...(nextAttemptAt !== undefined ? { nextAttemptAt } : {}) },
    ...(s.status === 'active' && failingSince !== undefined && consecutiveFailures > 0
      ? { disablesAt: new Date(Date.parse(failingSince) + input.disableAfterFailingMs).toISOString() }
      : {}),
  };
}

/** Reads what the view needs: the attempt log back to 24 h ago (bounded) and the pending deliveries. */
export async function readHealth(
  deliveries: Pick<DeliveryStore, 'listAttempts' | 'listBySubscription'>,
  subscription: Pick<SubscriptionRecord, 'id' | 'status' | 'health'>,
  now: number,
  disableAfterFailingMs: number,
): Promise<HealthView> {
  const windowStart = now - HEALTH_WINDOW_MS;
  const attempts: AttemptRecord[] = [];
  let cursor: string | undefined;
  let complete = true;
  for (;;) {
    const page = await deliveries.listAttempts({
      subscriptionId: subscription.id,
      limit: 200,
      ...(cursor ? { cursor } : {}),
    });
    attempts.push(...page.items);
    const oldest = page.items.at(-1);
    cursor = page.cursor;
    // Past the window with a success read (the last success is known), or nothing more to read.
    const pastWindow = oldest !== undefined && Date.parse(oldest.startedAt) < windowStart;
    if (!cursor || (pastWindow && attempts.some((a) => a.outcome === 'success'))) break;
    if (attempts.length >= HEALTH_MAX_ATTEMPTS) {
      complete = pastWindow;
      break;
    }
  }
  const pending = await deliveries.listBySubscription({
    subscriptionId: subscription.id,
    status: 'pending',
    limit: HEALTH_MAX_PENDING,
  });
  return summarizeHealth({
    subscription,
    attempts,
    complete,
    pending: pending.items,
    now,
    disableAfterFailingMs,
  });
}
