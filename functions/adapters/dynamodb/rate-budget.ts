import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  applyObservation,
  type BucketState,
  capacityOf,
  DEFAULT_RATE_BUDGET,
  decideTake,
  EMPTY_BUCKET,
  type RateBudgetConfig,
  RateBudgetError,
  usedFromObservation,
  validateConfig,
  validateObservation,
  windowStartOf,
} from '../../core/ratelimit/bucket';
import { type RateBudget, requireClientId } from '../../core/ratelimit/budget';
import { StoreError } from '../../core/store/errors';
import {
  conditionFailedItem,
  type Item,
  isConditionalCheckFailed,
  keys,
  storeFailure,
  type TableContext,
} from './common';

/**
 * The shared token bucket in DynamoDB: one item per client_id (`windowStart`, `used`,
 * `frozenUntil`), changed only by conditional UpdateItems whose expressions do the arithmetic, so
 * concurrent takers never read-modify-write each other's grants.
 *
 * A take is ONE UpdateItem in the common case (`used = used + n` if the window is the current one,
 * `used <= capacity - n` and not frozen). When its condition fails, the item returned with it
 * (`ReturnValuesOnConditionCheckFailure: ALL_OLD`) tells why: full or frozen (denied, no second
 * call) or a window to open (one more conditional UpdateItem, which at most one taker per window
 * wins). The decision itself is the pure `decideTake` (functions/core/ratelimit/bucket.ts).
 *
 * A correction from `X-RateLimit-Remaining` only ever raises `used` within a window, and `used`
 * never falls within a window. So a correction no higher than a count this process already saw for
 * the same window (returned by its own take) would fail its condition: it is not sent. With Carhook
 * as the client's only user, that is nearly every correction: about one write per API request
 * instead of two.
 */
const MAX_ATTEMPTS = 25;

function bucketFromItem(item: Item | undefined): BucketState {
  if (!item) return EMPTY_BUCKET;
  const num = (value: unknown) => (typeof value === 'number' ? value : 0);
  return { windowStart: num(item.windowStart), used: num(item.used), frozenUntil: num(item.frozenUntil) };
}

export function createDynamoRateBudget(
  ctx: Pick<TableContext, 'doc' | 'tableName'>,
  config: RateBudgetConfig = DEFAULT_RATE_BUDGET,
): RateBudget {
  validateConfig(config);
  const { doc, tableName: TableName } = ctx;
  const capacity = capacityOf(config);

  /** Runs one conditional update; returns undefined on success, the current bucket when the condition failed. */
  /** The highest count this process saw per client, with its window (only from successful takes). */
  const seen = new Map<string, { readonly windowStart: number; readonly used: number }>();
  const noteSeen = (clientId: string, windowStart: number, used: unknown): void => {
    if (typeof used !== 'number') return;
    const last = seen.get(clientId);
    if (!last || last.windowStart < windowStart || (last.windowStart === windowStart && last.used < used)) {
      seen.set(clientId, { windowStart, used });
    }
  };

  const attempt = async (
    clientId: string,
    input: Omit<UpdateCommandInput, 'TableName' | 'Key'>,
    operation: string,
  ): Promise<BucketState | undefined> => {
    try {
      const out = await doc.send(
        new UpdateCommand({
          TableName,
          Key: keys.rateBudget(clientId),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          ...input,
        }),
      );
      const attributes = out.Attributes as { windowStart?: unknown; used?: unknown } | undefined;
      if (attributes && typeof attributes.windowStart === 'number') {
        noteSeen(clientId, attributes.windowStart, attributes.used);
      }
      return undefined;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return bucketFromItem(conditionFailedItem(error));
      throw storeFailure(ctx, `UpdateItem rate budget ${operation}`, error, { clientId });
    }
  };

  const names = {
    '#windowStart': 'windowStart',
    '#used': 'used',
    '#frozenUntil': 'frozenUntil',
  };
  const notFrozen = '(attribute_not_exists(#frozenUntil) OR #frozenUntil <= :now)';

  /** Adds to the count of the window the item is in. */
  const increment = (clientId: string, window: number, n: number, now: number) =>
    attempt(
      clientId,
      {
        UpdateExpression: 'SET #used = #used + :n',
        ConditionExpression: `#windowStart = :window AND #used <= :ceiling AND ${notFrozen}`,
        ReturnValues: 'ALL_NEW',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':n': n, ':window': window, ':ceiling': capacity - n, ':now': now },
      },
      'take',
    );

  /** Moves the item to a newer window with `used` already counted. */
  const openWindow = (clientId: string, window: number, used: number, now: number | undefined) =>
    attempt(
      clientId,
      {
        UpdateExpression:
          'SET #entity = :entity, #windowStart = :window, #used = :used, #frozenUntil = if_not_exists(#frozenUntil, :zero)',
        ConditionExpression: `(attribute_not_exists(#windowStart) OR #windowStart < :window)${now !== undefined ? ` AND ${notFrozen}` : ''}`,
        ReturnValues: 'ALL_NEW',
        ExpressionAttributeNames: { ...names, '#entity': 'entity' },
        ExpressionAttributeValues: {
          ':entity': 'RateBudget',
          ':window': window,
          ':used': used,
          ':zero': 0,
          ...(now !== undefined ? { ':now': now } : {}),
        },
      },
      'open window',
    );

  return {
    async tryTake(clientId, n, now) {
      requireClientId(clientId);
      // Validates n and now (throws RateBudgetError) before any write.
      decideTake(EMPTY_BUCKET, n, now, config);
      let current = await increment(clientId, windowStartOf(now, config.windowMs), n, now);
      for (let i = 0; i < MAX_ATTEMPTS; i += 1) {
        if (current === undefined) return { granted: true };
        const decision = decideTake(current, n, now, config);
        if (!decision.granted) return decision;
        current =
          decision.state.windowStart === current.windowStart
            ? await increment(clientId, current.windowStart, n, now)
            : await openWindow(clientId, decision.state.windowStart, n, now);
      }
      throw new StoreError(
        'StoreFailure',
        `rate budget of ${clientId}: no decision after ${MAX_ATTEMPTS} attempts`,
        {
          table: TableName,
          operation: 'tryTake',
          clientId,
        },
      );
    },

    async observe(clientId, observation) {
      requireClientId(clientId);
      validateObservation(observation);
      const window = windowStartOf(observation.observedAt, config.windowMs);
      const used = usedFromObservation(observation, config);
      const last = seen.get(clientId);
      // Its condition (`#used < :used` in this window) cannot hold: nothing to send.
      if (last && last.windowStart === window && last.used >= used) return;
      let current = await attempt(
        clientId,
        {
          UpdateExpression: 'SET #used = :used',
          // Only ever raises the count of the same window: never up past the local view.
          ConditionExpression: '#windowStart = :window AND #used < :used',
          ExpressionAttributeNames: { '#windowStart': 'windowStart', '#used': 'used' },
          ExpressionAttributeValues: { ':window': window, ':used': used },
        },
        'observe',
      );
      for (let i = 0; i < MAX_ATTEMPTS && current !== undefined; i += 1) {
        const next = applyObservation(current, observation, config);
        if (next.windowStart === current.windowStart && next.used === current.used) return;
        current =
          next.windowStart === current.windowStart
            ? await attempt(
                clientId,
                {
                  UpdateExpression: 'SET #used = :used',
                  ConditionExpression: '#windowStart = :window AND #used < :used',
                  ExpressionAttributeNames: { '#windowStart': 'windowStart', '#used': 'used' },
                  ExpressionAttributeValues: { ':window': window, ':used': used },
                },
                'observe',
              )
            : await openWindow(clientId, window, used, undefined);
      }
    },

    async freezeUntil(clientId, resetAt) {
      requireClientId(clientId);
      if (!Number.isFinite(resetAt) || resetAt < 0)
        throw new RateBudgetError('resetAt', 'must be epoch milliseconds');
      // Never shortens a freeze; a lost condition means a later freeze is already there.
      await attempt(
        clientId,
        {
          UpdateExpression:
            'SET #entity = :entity, #frozenUntil = :resetAt, #windowStart = if_not_exists(#windowStart, :zero), #used = if_not_exists(#used, :zero)',
          ConditionExpression: 'attribute_not_exists(#frozenUntil) OR #frozenUntil < :resetAt',
          ExpressionAttributeNames: { ...names, '#entity': 'entity' },
          ExpressionAttributeValues: { ':entity': 'RateBudget', ':resetAt': resetAt, ':zero': 0 },
        },
        'freeze',
      );
    },
  };
}
