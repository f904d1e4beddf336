/**
 * Retry schedules of webhook deliveries, chosen by name (`--retry-schedule`,
 * `CARHOOK_RETRY_SCHEDULE`, the CDK prop `retrySchedule`):
 *
 * - `standard` (the default): retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (±20 % jitter),
 *   then the delivery is dead-lettered (8 attempts over about 27.6 h); an endpoint failing for 5 days
 *   without a success is disabled.
 * - `fast` (demos, tests, trying a receiver): retries after 1 s, 2 s, 5 s, 10 s, 20 s, so a delivery
 *   to a dead endpoint is exhausted within about a minute; an endpoint failing for 2 minutes without
 *   a success is disabled.
 *
 * Pure data: the policy (../webhooks/policy.ts `nextStep`) takes the schedule as an option.
 */
import { DISABLE_AFTER_FAILING_MS, RETRY_SCHEDULE_MS } from '../webhooks/policy';

export interface RetrySchedule {
  readonly name: string;
  /** Delay before each retry (the first follows the first attempt); its length is the number of retries. */
  readonly retriesMs: readonly number[];
  /** An endpoint failing this long without a success is disabled. */
  readonly disableAfterFailingMs: number;
  /** That span in the disable reason: `failing-for-5-days`, `failing-for-2-min`. */
  readonly failingFor: string;
}

export const retryScheduleNames = ['standard', 'fast'] as const;
export type RetryScheduleName = (typeof retryScheduleNames)[number];

export const RETRY_SCHEDULES: Readonly<Record<RetryScheduleName, RetrySchedule>> = {
  standard: {
    name: 'standard',
    retriesMs: RETRY_SCHEDULE_MS,
    disableAfterFailingMs: DISABLE_AFTER_FAILING_MS,
    failingFor: '5-days',
  },
  fast: {
    name: 'fast',
    retriesMs: [1000, 2000, 5000, 10_000, 20_000],
    disableAfterFailingMs: 2 * 60_000,
    failingFor: '2-min',
  },
};

export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = RETRY_SCHEDULES.standard;

/** The schedule of that name, or an error naming the field and the accepted names. */
export function parseRetrySchedule(
  field: string,
  raw: string | undefined,
): { ok: true; value: RetrySchedule } | { ok: false; message: string } {
  const name = raw?.trim();
  if (name === undefined || name === '') return { ok: true, value: DEFAULT_RETRY_SCHEDULE };
  if ((retryScheduleNames as readonly string[]).includes(name))
    return { ok: true, value: RETRY_SCHEDULES[name as RetryScheduleName] };
  return {
    ok: false,
    message: `${field}: must be one of ${retryScheduleNames.join(', ')}, got '${name}'`,
  };
}
