import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  type BucketState,
  capacityOf,
  DEFAULT_RATE_BUDGET,
  decideTake,
  EMPTY_BUCKET,
  observeQuota,
  type RateBudgetConfig,
  RateBudgetError,
  validateConfig,
  validateObservation,
  windowStartOf,
} from '../../core/ratelimit/bucket';
import { followedOf, type RateBudget, requireClientId } from '../../core/ratelimit/budget';
import {
  type FollowedQuota,
  followedConfig,
  type QuotaChange,
  type StoredQuota,
} from '../../core/ratelimit/quota';
import { StoreError } from '../../core/store/errors';
import {
  conditionFailedItem,
  getConsistent,
  type Item,
  isConditionalCheckFailed,
  keys,
  malformed,
  storeFailure,
  type TableContext,
  writeIf,
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
 *
 * The quota followed from `X-RateLimit-Limit` (core/ratelimit/quota.ts) is on the same item
 * (`quotaLimit`, `quotaConfigured`, `quotaWindowMs`). Every take's condition names the quota the
 * taker counted its ceiling from, so a limit another worker lowered is never granted past: the
 * failed condition returns the item, and the take is decided again. A change is written with a
 * condition on the quota it replaces, so one worker makes it and tells it; it also writes the
 * `QUOTA` item, the quota followed as the planner and `GET /capacity` read it (they know no client id).
 */
const MAX_ATTEMPTS = 25;

const FOLLOWED_KEY = { pk: 'QUOTA', sk: 'QUOTA' } as const;

function quotaFromItem(item: Item): StoredQuota | undefined {
  const { quotaLimit: limit, quotaConfigured: configured, quotaWindowMs: windowMs } = item;
  if (typeof limit !== 'number' || typeof configured !== 'number' || typeof windowMs !== 'number') {
    return undefined;
  }
  return { limit, configured, windowMs };
}

function bucketFromItem(item: Item | undefined): BucketState {
  if (!item) return EMPTY_BUCKET;
  const num = (value: unknown) => (typeof value === 'number' ? value : 0);
  const quota = quotaFromItem(item);
  return {
    windowStart: num(item.windowStart),
    used: num(item.used),
    frozenUntil: num(item.frozenUntil),
    ...(quota ? { quota } : {}),
  };
}

const sameQuota = (a: StoredQuota | undefined, b: StoredQuota | undefined): boolean =>
  a === b ||
  (a !== undefined &&
    b !== undefined &&
    a.limit === b.limit &&
    a.configured === b.configured &&
    a.windowMs === b.windowMs);

const QUOTA_NAMES = { '#ql': 'quotaLimit', '#qc': 'quotaConfigured', '#qw': 'quotaWindowMs' };

/** A condition that the item follows `quota` (undefined: none recorded yet). */
function quotaIs(quota: StoredQuota | undefined): {
  condition: string;
  names: Record<string, string>;
  values: Record<string, number>;
} {
  if (!quota) return { condition: 'attribute_not_exists(#ql)', names: { '#ql': 'quotaLimit' }, values: {} };
  return {
    condition: '(#ql = :ql0 AND #qc = :qc0 AND #qw = :qw0)',
    names: QUOTA_NAMES,
    values: { ':ql0': quota.limit, ':qc0': quota.configured, ':qw0': quota.windowMs },
  };
}

function followedFromItem(ctx: Pick<TableContext, 'tableName'>, item: Item): FollowedQuota {
  const key = 'QUOTA';
  for (const field of ['clientId', 'source'] as const) {
    if (typeof item[field] !== 'string') throw malformed(ctx, 'followed quota', field, key);
  }
  for (const field of ['limit', 'windowMs', 'configuredLimit', 'ceiling', 'changedAt'] as const) {
    const v = item[field];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
      throw malformed(ctx, 'followed quota', field, key);
    }
  }
  if (item.source !== 'header' && item.source !== 'configuration') {
    throw malformed(ctx, 'followed quota', 'source', key);
  }
  return {
    clientId: item.clientId as string,
    limit: item.limit as number,
    windowMs: item.windowMs as number,
    configuredLimit: item.configuredLimit as number,
    ceiling: item.ceiling as number,
    source: item.source,
    changedAt: item.changedAt as number,
  };
}

export function createDynamoRateBudget(
  ctx: Pick<TableContext, 'doc' | 'tableName'>,
  config: RateBudgetConfig = DEFAULT_RATE_BUDGET,
): RateBudget {
  validateConfig(config);
  const { doc, tableName: TableName } = ctx;

  /** The bucket this process last saw per client (from its successful writes and failed conditions). */
  const seen = new Map<string, BucketState>();
  const noteSeen = (clientId: string, state: BucketState): void => {
    const last = seen.get(clientId);
    if (
      !last ||
      last.windowStart < state.windowStart ||
      (last.windowStart === state.windowStart && last.used <= state.used) ||
      !sameQuota(last.quota, state.quota)
    ) {
      seen.set(clientId, state);
    }
  };

  /** Runs one conditional update; returns undefined on success, the current bucket when the condition failed. */
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
          ReturnValues: 'ALL_NEW',
          ...input,
        }),
      );
      const attributes = out.Attributes as Item | undefined;
      if (attributes && typeof attributes.windowStart === 'number') {
        noteSeen(clientId, bucketFromItem(attributes));
      }
      return undefined;
    } catch (error) {
      if (isConditionalCheckFailed(error)) {
        const current = bucketFromItem(conditionFailedItem(error));
        seen.set(clientId, current);
        return current;
      }
      throw storeFailure(ctx, `UpdateItem rate budget ${operation}`, error, { clientId });
    }
  };

  const names = {
    '#windowStart': 'windowStart',
    '#used': 'used',
    '#frozenUntil': 'frozenUntil',
  };
  const notFrozen = '(attribute_not_exists(#frozenUntil) OR #frozenUntil <= :now)';

  /** Adds to the count of the window the item is in, under the quota the taker counted from. */
  const increment = (clientId: string, expected: BucketState, window: number, n: number, now: number) => {
    const capacity = capacityOf(followedConfig(expected, config));
    const quota = quotaIs(expected.quota);
    return attempt(
      clientId,
      {
        UpdateExpression: 'SET #used = #used + :n',
        ConditionExpression: `#windowStart = :window AND #used <= :ceiling AND ${notFrozen} AND ${quota.condition}`,
        ExpressionAttributeNames: { ...names, ...quota.names },
        ExpressionAttributeValues: {
          ':n': n,
          ':window': window,
          ':ceiling': capacity - n,
          ':now': now,
          ...quota.values,
        },
      },
      'take',
    );
  };

  /** Moves the item to a newer window with `used` already counted. */
  const openWindow = (clientId: string, window: number, used: number, now: number) =>
    attempt(
      clientId,
      {
        UpdateExpression:
          'SET #entity = :entity, #windowStart = :window, #used = :used, #frozenUntil = if_not_exists(#frozenUntil, :zero)',
        ConditionExpression: `(attribute_not_exists(#windowStart) OR #windowStart < :window) AND ${notFrozen}`,
        ExpressionAttributeNames: { ...names, '#entity': 'entity' },
        ExpressionAttributeValues: {
          ':entity': 'RateBudget',
          ':window': window,
          ':used': used,
          ':zero': 0,
          ':now': now,
        },
      },
      'open window',
    );

  /**
   * Writes what an observation makes of `expected`: the quota (on the condition that it is still
   * the one replaced) and the count (only ever up in a window, or a newer window).
   */
  const writeObserved = (clientId: string, expected: BucketState, next: BucketState) => {
    const sets: string[] = ['#entity = :entity'];
    const conditions: string[] = [];
    const values: Record<string, unknown> = { ':entity': 'RateBudget' };
    const attributeNames: Record<string, string> = { '#entity': 'entity' };
    if (!sameQuota(expected.quota, next.quota) && next.quota) {
      const q = quotaIs(expected.quota);
      conditions.push(q.condition);
      Object.assign(values, q.values, {
        ':ql': next.quota.limit,
        ':qc': next.quota.configured,
        ':qw': next.quota.windowMs,
      });
      Object.assign(attributeNames, QUOTA_NAMES);
      sets.push('#ql = :ql', '#qc = :qc', '#qw = :qw');
    }
    if (next.windowStart > expected.windowStart) {
      conditions.push('(attribute_not_exists(#windowStart) OR #windowStart < :window)');
      sets.push(
        '#windowStart = :window',
        '#used = :used',
        '#frozenUntil = if_not_exists(#frozenUntil, :zero)',
      );
      Object.assign(attributeNames, names);
      Object.assign(values, { ':window': next.windowStart, ':used': next.used, ':zero': 0 });
    } else if (next.used > expected.used) {
      conditions.push('#windowStart = :window AND #used < :used');
      sets.push('#used = :used');
      Object.assign(attributeNames, { '#windowStart': 'windowStart', '#used': 'used' });
      Object.assign(values, { ':window': next.windowStart, ':used': next.used });
    }
    return attempt(
      clientId,
      {
        UpdateExpression: `SET ${sets.join(', ')}`,
        ...(conditions.length > 0 ? { ConditionExpression: conditions.join(' AND ') } : {}),
        ExpressionAttributeNames: attributeNames,
        ExpressionAttributeValues: values,
      },
      'observe',
    );
  };

  const recordFollowed = async (followed: FollowedQuota): Promise<void> => {
    const put = new PutCommand({
      TableName,
      Item: { ...FOLLOWED_KEY, entity: 'FollowedQuota', ...followed },
      // A slower worker's older change never replaces a newer one.
      ConditionExpression: 'attribute_not_exists(pk) OR changedAt <= :changedAt',
      ExpressionAttributeValues: { ':changedAt': followed.changedAt },
    });
    await writeIf(ctx, () => doc.send(put), 'PutItem followed quota', { clientId: followed.clientId });
  };

  return {
    async tryTake(clientId, n, now) {
      requireClientId(clientId);
      // Validates n and now (throws RateBudgetError) before any write.
      decideTake(EMPTY_BUCKET, n, now, config);
      const window = windowStartOf(now, config.windowMs);
      const view = seen.get(clientId);
      let current = await increment(
        clientId,
        { ...(view ?? EMPTY_BUCKET), windowStart: window },
        window,
        n,
        now,
      );
      for (let i = 0; i < MAX_ATTEMPTS; i += 1) {
        if (current === undefined) return { granted: true };
        const decision = decideTake(current, n, now, config);
        if (!decision.granted) return decision;
        current =
          decision.state.windowStart === current.windowStart
            ? await increment(clientId, current, current.windowStart, n, now)
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
      let current =
        seen.get(clientId) ??
        bucketFromItem(
          await getConsistent(ctx, keys.rateBudget(clientId), 'GetItem rate budget', { clientId }),
        );
      for (let i = 0; i < MAX_ATTEMPTS; i += 1) {
        const { state: next, change } = observeQuota(current, observation, config);
        const quotaMoved = !sameQuota(current.quota, next.quota);
        // Nothing to write: the condition of a correction no higher than the count seen could not hold.
        if (!quotaMoved && next.windowStart === current.windowStart && next.used <= current.used) {
          return undefined;
        }
        const failed = await writeObserved(clientId, current, next);
        if (failed === undefined) {
          if (!quotaMoved || !change) return undefined;
          const told: QuotaChange = { ...change, clientId, changedAt: observation.observedAt };
          await recordFollowed(followedOf(told, config));
          return told;
        }
        current = failed;
      }
      return undefined;
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

    async followed() {
      const item = await getConsistent(ctx, FOLLOWED_KEY, 'GetItem followed quota', {});
      return item ? followedFromItem(ctx, item) : undefined;
    },
  };
}
