import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  decodeCursor,
  iso,
  isTerminalPause,
  newVehicleRecord,
  requireEpochMs,
  requireId,
  requireIsoDate,
  requirePageLimit,
  requirePauseReason,
  validateScheduleUpdate,
} from '../../core/store/logic';
import type { VehicleStore } from '../../core/store/ports';
import {
  type PauseReason,
  pauseReasons,
  type ScheduleUpdate,
  type SchedulingHints,
  type VehicleRecord,
} from '../../core/store/records';
import {
  getConsistent,
  type Item,
  isConditionalCheckFailed,
  keys,
  malformed,
  pageOf,
  putIfAbsent,
  queryRange,
  shardOf,
  storeFailure,
  type TableContext,
  writeIf,
} from './common';
import { INDEX } from './table';

export function dueSortKey(nextPollAt: string, vehicleId: string): string {
  return `${nextPollAt}#${vehicleId}`;
}

export function vehicleFromItem(ctx: TableContext, item: Item): VehicleRecord {
  const key = String(item.pk);
  const need = (field: string): string => {
    const value = item[field];
    if (typeof value !== 'string') throw malformed(ctx, 'vehicle', field, key);
    return value;
  };
  const optional = (field: string): string | undefined =>
    typeof item[field] === 'string' ? (item[field] as string) : undefined;
  const rawHints = (item.hints ?? {}) as Record<string, unknown>;
  const hints: SchedulingHints = {
    activeAlerts: rawHints.activeAlerts === true,
    priority: typeof rawHints.priority === 'number' ? rawHints.priority : 0,
    ...(typeof rawHints.lastActivityAt === 'string' ? { lastActivityAt: rawHints.lastActivityAt } : {}),
    ...(typeof rawHints.rates === 'string' ? { rates: rawHints.rates } : {}),
    ...(typeof rawHints.workWaitingAt === 'string' ? { workWaitingAt: rawHints.workWaitingAt } : {}),
    ...(typeof rawHints.eventsRefusedAt === 'string' ? { eventsRefusedAt: rawHints.eventsRefusedAt } : {}),
  };
  const resourcePolledAt: Record<string, string> = {};
  for (const [resource, at] of Object.entries((item.resourcePolledAt ?? {}) as Record<string, unknown>)) {
    if (typeof at === 'string') resourcePolledAt[resource] = at;
  }
  const pauseReason = optional('pauseReason');
  if (pauseReason !== undefined && !pauseReasons.includes(pauseReason as PauseReason)) {
    throw malformed(ctx, 'vehicle', 'pauseReason', key);
  }
  const brand = optional('brand');
  const model = optional('model');
  const subModel = optional('subModel');
  const apiVehicleId = optional('apiVehicleId');
  const lastPolledAt = optional('lastPolledAt');
  const lastChangeAt = optional('lastChangeAt');
  return {
    id: need('id'),
    enrollmentId: need('enrollmentId'),
    vin: need('vin'),
    ...(brand !== undefined ? { brand } : {}),
    ...(model !== undefined ? { model } : {}),
    ...(subModel !== undefined ? { subModel } : {}),
    ...(apiVehicleId !== undefined ? { apiVehicleId } : {}),
    paused: item.paused === true,
    ...(pauseReason !== undefined ? { pauseReason: pauseReason as PauseReason } : {}),
    nextPollAt: need('nextPollAt'),
    ...(lastPolledAt !== undefined ? { lastPolledAt } : {}),
    ...(lastChangeAt !== undefined ? { lastChangeAt } : {}),
    hints,
    resourcePolledAt,
    createdAt: need('createdAt'),
    updatedAt: need('updatedAt'),
  };
}

export interface UpdateParts {
  readonly expression: string;
  readonly names: Record<string, string>;
  readonly values: Record<string, unknown>;
}

/**
 * The UpdateItem of the scheduling fields (touchSchedule, and inside commitPoll). It moves the due
 * index's sort key with `nextPollAt` but never sets `gsi2pk`: whether the vehicle is in the due
 * index is decided by pause/resume alone, so a schedule write cannot resume a paused vehicle.
 */
export function scheduleUpdateParts(vehicleId: string, update: ScheduleUpdate, now: number): UpdateParts {
  const sets = ['#nextPollAt = :nextPollAt', '#gsi2sk = :gsi2sk', '#updatedAt = :updatedAt'];
  const names: Record<string, string> = {
    '#nextPollAt': 'nextPollAt',
    '#gsi2sk': 'gsi2sk',
    '#updatedAt': 'updatedAt',
  };
  const values: Record<string, unknown> = {
    ':nextPollAt': update.nextPollAt,
    ':gsi2sk': dueSortKey(update.nextPollAt, vehicleId),
    ':updatedAt': iso(now),
  };
  if (update.lastPolledAt !== undefined) {
    sets.push('#lastPolledAt = :lastPolledAt');
    names['#lastPolledAt'] = 'lastPolledAt';
    values[':lastPolledAt'] = update.lastPolledAt;
  }
  if (update.lastChangeAt !== undefined) {
    sets.push('#lastChangeAt = :lastChangeAt');
    names['#lastChangeAt'] = 'lastChangeAt';
    values[':lastChangeAt'] = update.lastChangeAt;
  }
  const hintEntries = Object.entries(update.hints ?? {}).filter(([, value]) => value !== undefined);
  if (hintEntries.length > 0) names['#hints'] = 'hints';
  hintEntries.forEach(([hint, value], i) => {
    sets.push(`#hints.#hint${i} = :hint${i}`);
    names[`#hint${i}`] = hint;
    values[`:hint${i}`] = value;
  });
  const resources = Object.entries(update.resourcePolledAt ?? {});
  if (resources.length > 0) names['#resources'] = 'resourcePolledAt';
  resources.forEach(([resource, at], i) => {
    sets.push(`#resources.#resource${i} = :resource${i}`);
    names[`#resource${i}`] = resource;
    values[`:resource${i}`] = at;
  });
  return { expression: `SET ${sets.join(', ')}`, names, values };
}

export function createDynamoVehicleStore(ctx: TableContext): VehicleStore {
  const { tableName: TableName, doc } = ctx;

  return {
    async put(vehicle, now) {
      const item: Item = {
        ...keys.vehicle(vehicle.id),
        entity: 'Vehicle',
        ...newVehicleRecord(vehicle, now),
        gsi1pk: keys.vehiclesOfEnrollment(vehicle.enrollmentId),
        gsi1sk: vehicle.id,
        gsi2pk: keys.dueShard(shardOf(vehicle.id, ctx.dueShards)),
        gsi2sk: dueSortKey(vehicle.nextPollAt, vehicle.id),
      };
      return { created: await putIfAbsent(ctx, item, 'PutItem vehicle', { vehicleId: vehicle.id }) };
    },

    async get(vehicleId) {
      requireId('vehicleId', vehicleId);
      const item = await getConsistent(ctx, keys.vehicle(vehicleId), 'GetItem vehicle', { vehicleId });
      return item ? vehicleFromItem(ctx, item) : undefined;
    },

    async listByEnrollment(enrollmentId) {
      requireId('enrollmentId', enrollmentId);
      const items = await queryRange(
        ctx,
        {
          index: INDEX.gsi1,
          partitionName: 'gsi1pk',
          partitionValue: keys.vehiclesOfEnrollment(enrollmentId),
          sortName: 'gsi1sk',
        },
        Number.POSITIVE_INFINITY,
      );
      return items.map((item) => vehicleFromItem(ctx, item));
    },

    async listDue(query) {
      requireEpochMs('now', query.now);
      const limit = requirePageLimit(query.limit);
      const after = decodeCursor(query.cursor);
      // `<now>$` sorts after every `<now>#<id>` ('$' follows '#'): all vehicles due at or before now.
      const to = `${iso(query.now)}$`;
      if (after !== undefined && after >= to) return { items: [] };
      // Each shard is read in order from the cursor, then the shards are merged: the global order
      // (nextPollAt, id) is what the cursor remembers, so pages neither skip nor repeat.
      const perShard = await Promise.all(
        Array.from({ length: ctx.dueShards }, (_, shard) =>
          queryRange(
            ctx,
            {
              index: INDEX.gsi2,
              partitionName: 'gsi2pk',
              partitionValue: keys.dueShard(shard),
              sortName: 'gsi2sk',
              to,
              ...(after !== undefined ? { after } : {}),
            },
            limit + 1,
          ),
        ),
      );
      const merged = perShard
        .flat()
        .sort((a, b) =>
          String(a.gsi2sk) < String(b.gsi2sk) ? -1 : String(a.gsi2sk) > String(b.gsi2sk) ? 1 : 0,
        );
      return pageOf(merged, limit, 'gsi2sk', (item) => vehicleFromItem(ctx, item));
    },

    async touchSchedule(vehicleId, update, now) {
      requireId('vehicleId', vehicleId);
      validateScheduleUpdate(update);
      const parts = scheduleUpdateParts(vehicleId, update, now);
      const command = new UpdateCommand({
        TableName,
        Key: keys.vehicle(vehicleId),
        UpdateExpression: parts.expression,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: parts.names,
        ExpressionAttributeValues: parts.values,
      });
      return writeIf(ctx, () => doc.send(command), 'UpdateItem touch schedule', { vehicleId });
    },

    async pause(vehicleId: string, reason: PauseReason, now: number) {
      requireId('vehicleId', vehicleId);
      requirePauseReason(reason);
      // A terminal reason overrides any non-terminal pause; otherwise only a running vehicle pauses.
      const condition = isTerminalPause(reason)
        ? 'attribute_exists(pk) AND (#paused = :false OR NOT (#reason IN (:unenrolled, :removed)))'
        : 'attribute_exists(pk) AND #paused = :false';
      try {
        const { Attributes: old } = await doc.send(
          new UpdateCommand({
            TableName,
            Key: keys.vehicle(vehicleId),
            UpdateExpression: 'SET #paused = :true, #reason = :reason, #updatedAt = :now REMOVE #gsi2pk',
            ConditionExpression: condition,
            ExpressionAttributeNames: {
              '#paused': 'paused',
              '#reason': 'pauseReason',
              '#updatedAt': 'updatedAt',
              '#gsi2pk': 'gsi2pk',
            },
            ExpressionAttributeValues: {
              ':true': true,
              ':false': false,
              ':reason': reason,
              ':now': iso(now),
              ...(isTerminalPause(reason) ? { ':unenrolled': 'unenrolled', ':removed': 'removed' } : {}),
            },
            ReturnValues: 'ALL_OLD',
          }),
        );
        return old?.paused !== true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw storeFailure(ctx, 'UpdateItem pause vehicle', error, { vehicleId });
      }
    },

    async resume(vehicleId, now, options = {}) {
      requireId('vehicleId', vehicleId);
      if (options.reason !== undefined) requirePauseReason(options.reason);
      if (options.nextPollAt !== undefined) requireIsoDate('nextPollAt', options.nextPollAt);
      const nextPollAt = options.nextPollAt ?? iso(now);
      const reasonCondition =
        options.reason !== undefined ? '#reason = :reason' : 'NOT (#reason IN (:unenrolled, :removed))';
      const command = new UpdateCommand({
        TableName,
        Key: keys.vehicle(vehicleId),
        UpdateExpression:
          'SET #paused = :false, #nextPollAt = :next, #gsi2pk = :shard, #gsi2sk = :due, #updatedAt = :now REMOVE #reason',
        ConditionExpression: `attribute_exists(pk) AND #paused = :true AND ${reasonCondition}`,
        ExpressionAttributeNames: {
          '#paused': 'paused',
          '#reason': 'pauseReason',
          '#nextPollAt': 'nextPollAt',
          '#gsi2pk': 'gsi2pk',
          '#gsi2sk': 'gsi2sk',
          '#updatedAt': 'updatedAt',
        },
        ExpressionAttributeValues: {
          ':true': true,
          ':false': false,
          ':next': nextPollAt,
          ':shard': keys.dueShard(shardOf(vehicleId, ctx.dueShards)),
          ':due': dueSortKey(nextPollAt, vehicleId),
          ':now': iso(now),
          ...(options.reason !== undefined
            ? { ':reason': options.reason }
            : { ':unenrolled': 'unenrolled', ':removed': 'removed' }),
        },
      });
      return writeIf(ctx, () => doc.send(command), 'UpdateItem resume vehicle', { vehicleId });
    },
  };
}
