/**
 * Following a replay (`carhook subscriptions replay`) until every replayed event has a final outcome.
 * The API answers 202 at once and delivers asynchronously, so the CLI polls the subscription's attempt
 * log (`GET /subscriptions/{id}/deliveries`, newest first) and matches the replay's own deliveries.
 */
import * as z from 'zod';
import { extraDeliveryId } from '../../functions/core/subscriptions/logic';
import { attemptSchema } from '../../functions/http/contract';

/** The fields of one attempt-log line this follower reads (the contract's `Attempt`). */
const attemptLineSchema = attemptSchema.pick({
  deliveryId: true,
  eventId: true,
  attemptNumber: true,
  startedAt: true,
  outcome: true,
  decision: true,
  statusCode: true,
  error: true,
});
export type AttemptLine = z.output<typeof attemptLineSchema>;

export interface AttemptPage {
  readonly items: readonly AttemptLine[];
  readonly cursor?: string;
  /** The server's clock when it answered (ms), if known. */
  readonly serverTime?: number;
}

export interface FailedReplay {
  readonly eventId: string;
  /** What the last attempt got (`failure`, `timeout`, `gone`, …) and what the service decided. */
  readonly outcome: string;
  readonly decision: string;
  readonly statusCode?: number;
  readonly error?: string;
}

export interface PendingReplay {
  readonly eventId: string;
  readonly attempts: number;
  /** The last attempt's outcome, when there was one (a retry is scheduled). */
  readonly lastOutcome?: string;
}

export interface ReplayOutcome {
  readonly delivered: readonly string[];
  readonly failed: readonly FailedReplay[];
  /** Still without a final outcome when the wait stopped (timeout). */
  readonly pending: readonly PendingReplay[];
  readonly timedOut: boolean;
}

/**
 * A replayed event is a new delivery whose id the service derives from (event, subscription, replay id)
 * (functions/core/subscriptions/logic.ts): matching on it, not on the event id, keeps earlier
 * deliveries of the same events out of the count.
 */
export function replayDeliveries(
  subscriptionId: string,
  replayId: string,
  eventIds: readonly string[],
): Map<string, string> {
  return new Map(eventIds.map((e) => [extraDeliveryId('replay', e, subscriptionId, replayId), e]));
}

/**
 * An attempt is logged when it ends, sorted by when it started: one still running when a poll reads the
 * log can appear later behind newer lines. Each poll therefore re-reads this far back (server clock),
 * more than the delivery lease (60 s) after which an attempt is abandoned anyway.
 */
export const ATTEMPT_LOOKBACK_MS = 120_000;

/** Reads the attempt log into the replay's tally; pure, so the rules are tested without a server. */
export function createReplayTally(deliveries: ReadonlyMap<string, string>) {
  const final = new Map<string, { delivered: true } | FailedReplay>();
  const tries = new Map<string, { attempts: Set<number>; lastOutcome: string; lastAt: string }>();
  return {
    /** Records one line; returns true when it gave a delivery its final outcome now. */
    add(line: AttemptLine): boolean {
      const eventId = deliveries.get(line.deliveryId);
      if (eventId === undefined || final.has(line.deliveryId)) return false;
      const seen = tries.get(line.deliveryId) ?? { attempts: new Set(), lastOutcome: '', lastAt: '' };
      seen.attempts.add(line.attemptNumber);
      if (line.startedAt >= seen.lastAt) {
        seen.lastOutcome = line.outcome;
        seen.lastAt = line.startedAt;
      }
      tries.set(line.deliveryId, seen);
      if (line.decision === 'done') {
        final.set(line.deliveryId, { delivered: true });
        return true;
      }
      // `dead-letter`: retries exhausted; `disabled`: the endpoint disabled the subscription, so the
      // delivery stays parked until someone enables it again. Neither ends without a person.
      if (line.decision === 'dead-letter' || line.decision === 'disabled') {
        final.set(line.deliveryId, {
          eventId,
          outcome: line.outcome,
          decision: line.decision,
          ...(line.statusCode !== undefined ? { statusCode: line.statusCode } : {}),
          ...(line.error !== undefined ? { error: line.error } : {}),
        });
        return true;
      }
      return false;
    },
    settled: () => final.size,
    outcome(timedOut: boolean): ReplayOutcome {
      const delivered: string[] = [];
      const failed: FailedReplay[] = [];
      const pending: PendingReplay[] = [];
      for (const [deliveryId, eventId] of deliveries) {
        const f = final.get(deliveryId);
        if (f === undefined) {
          const t = tries.get(deliveryId);
          pending.push({
            eventId,
            attempts: t?.attempts.size ?? 0,
            ...(t ? { lastOutcome: t.lastOutcome } : {}),
          });
        } else if ('delivered' in f) delivered.push(eventId);
        else failed.push(f);
      }
      return { delivered, failed, pending, timedOut };
    },
  };
}

export interface WaitOptions {
  readonly subscriptionId: string;
  readonly replayId: string;
  readonly eventIds: readonly string[];
  /** The server's clock when it accepted the replay (ms), if known: no earlier attempt is one of ours. */
  readonly acceptedAt?: number;
  /** One page of the attempt log, newest first. */
  readonly listAttempts: (cursor: string | undefined) => Promise<AttemptPage>;
  readonly timeoutMs: number;
  readonly intervalMs: number;
  readonly onProgress?: (settled: number, total: number) => void;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export async function waitForReplay(options: WaitOptions): Promise<ReplayOutcome> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deliveries = replayDeliveries(options.subscriptionId, options.replayId, options.eventIds);
  const tally = createReplayTally(deliveries);
  const total = deliveries.size;
  const deadline = now() + options.timeoutMs;
  // Server clock, so the client's clock skew does not matter. Without a Date header: read everything.
  const floor = options.acceptedAt === undefined ? undefined : options.acceptedAt - ATTEMPT_LOOKBACK_MS;
  let horizon = floor;
  for (;;) {
    if (tally.settled() >= total) return tally.outcome(false);
    let cursor: string | undefined;
    let pollTime: number | undefined;
    let progressed = false;
    do {
      const page = await options.listAttempts(cursor);
      pollTime ??= page.serverTime;
      for (const line of page.items) if (tally.add(line)) progressed = true;
      const oldest = page.items.at(-1);
      cursor = page.cursor;
      if (horizon !== undefined && oldest && Date.parse(oldest.startedAt) < horizon) cursor = undefined;
    } while (cursor);
    if (pollTime !== undefined)
      horizon = Math.max(floor ?? Number.NEGATIVE_INFINITY, pollTime - ATTEMPT_LOOKBACK_MS);
    if (progressed) options.onProgress?.(tally.settled(), total);
    if (tally.settled() >= total) return tally.outcome(false);
    const left = deadline - now();
    if (left <= 0) return tally.outcome(true);
    await sleep(Math.min(options.intervalMs, left));
  }
}

/** The attempt-log lines of an API answer (a parsing boundary: lines without the fields are skipped). */
/** A page of the attempt log as the contract describes it; a line that does not match it is skipped. */
const pageSchema = z.object({
  items: z.array(z.unknown()).catch([]),
  cursor: z.string().optional().catch(undefined),
});

export function attemptLines(body: unknown): { items: AttemptLine[]; cursor?: string } {
  const page = pageSchema.safeParse(body);
  if (!page.success) return { items: [] };
  const items: AttemptLine[] = [];
  for (const raw of page.data.items) {
    const line = attemptLineSchema.safeParse(raw);
    if (line.success) items.push(line.data);
  }
  const cursor = page.data.cursor;
  return { items, ...(cursor !== undefined && cursor !== '' ? { cursor } : {}) };
}
