import { setTimeout as sleep } from 'node:timers/promises';
import { QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { backoffCeiling, fullJitter } from '../../core/backoff';
import type { EventEnvelope } from '../../core/events/envelope';
import { invalidInput } from '../../core/store/errors';
import { stateKeyOf } from '../../core/store/identity';
import {
  checkStateSize,
  iso,
  prepareEvents,
  requireEpochMs,
  requireId,
  validateScheduleUpdate,
} from '../../core/store/logic';
import type { CommitPollInput, CommitPollResult, VehicleStateStore } from '../../core/store/ports';
import type { VehicleStateRecord } from '../../core/store/records';
import {
  getConsistent,
  type Item,
  keys,
  malformed,
  refusalReasons,
  storeFailure,
  type TableContext,
} from './common';
import { appendEvents, eventItem } from './events';
import { scheduleUpdateParts, vehicleFromItem } from './vehicles';

/** aws-facts.md: TransactWriteItems takes at most 100 actions and 4 MB. */
export const MAX_TRANSACTION_ACTIONS = 100;
/** Kept below 4 MB for the keys and attribute names around the payloads. */
export const MAX_TRANSACTION_BYTES = 3_500_000;
/** Retries of a transaction cancelled by a concurrent transaction on the same items. */
const TRANSACTION_CONFLICT_RETRIES = 6;

export function stateFromItem(ctx: TableContext, item: Item): VehicleStateRecord {
  const key = String(item.pk);
  for (const field of ['vehicleId', 'state', 'stateFormat', 'updatedAt']) {
    if (typeof item[field] !== 'string') throw malformed(ctx, 'vehicle state', field, key);
  }
  if (typeof item.version !== 'number') throw malformed(ctx, 'vehicle state', 'version', key);
  return {
    vehicleId: item.vehicleId as string,
    state: item.state as string,
    stateFormat: item.stateFormat as string,
    version: item.version,
    updatedAt: item.updatedAt as string,
  };
}

function validateCommit(input: CommitPollInput): EventEnvelope[] {
  requireId('vehicleId', input.vehicleId);
  if (input.stateKey !== undefined) requireId('stateKey', input.stateKey);
  requireEpochMs('now', input.now);
  if (!Number.isInteger(input.expectedVersion) || input.expectedVersion < 0) {
    throw invalidInput('expectedVersion', 'must be a non-negative integer (0 before the first commit)');
  }
  requireId('stateFormat', input.stateFormat);
  if (typeof input.state !== 'string') throw invalidInput('state', 'must be the serialized state string');
  checkStateSize(input.stateKey ?? input.vehicleId, input.state);
  if (input.schedule) validateScheduleUpdate(input.schedule);
  return prepareEvents(input.events);
}

export function createDynamoVehicleStateStore(ctx: TableContext): VehicleStateStore {
  const { tableName: TableName, doc } = ctx;

  const stateUpdate = (input: CommitPollInput) => ({
    TableName,
    // The identity's state (`VEH#vin:<VIN>`) when a state key is given, else the vehicle's own.
    Key: keys.vehicleState(input.stateKey ?? input.vehicleId),
    UpdateExpression:
      'SET #entity = :entity, #vehicleId = :vehicleId, #state = :state, #format = :format, #version = :next, #updatedAt = :now',
    // The optimistic lock: only the worker whose diff was based on the stored version commits.
    ConditionExpression: input.expectedVersion === 0 ? 'attribute_not_exists(pk)' : '#version = :expected',
    ExpressionAttributeNames: {
      '#entity': 'entity',
      '#vehicleId': 'vehicleId',
      '#state': 'state',
      '#format': 'stateFormat',
      '#version': 'version',
      '#updatedAt': 'updatedAt',
    },
    ExpressionAttributeValues: {
      ':entity': 'VehicleState',
      ':vehicleId': input.stateKey ?? input.vehicleId,
      ':state': input.state,
      ':format': input.stateFormat,
      ':next': input.expectedVersion + 1,
      ':now': iso(input.now),
      ...(input.expectedVersion === 0 ? {} : { ':expected': input.expectedVersion }),
    },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  });

  const scheduleAction = (input: CommitPollInput) => {
    if (!input.schedule) return undefined;
    const parts = scheduleUpdateParts(input.vehicleId, input.schedule, input.now);
    return {
      TableName,
      Key: keys.vehicle(input.vehicleId),
      UpdateExpression: parts.expression,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: parts.names,
      ExpressionAttributeValues: parts.values,
    };
  };

  const conflict = (input: CommitPollInput, current: Item | undefined): CommitPollResult => ({
    kind: 'VersionConflict',
    vehicleId: input.vehicleId,
    expectedVersion: input.expectedVersion,
    current: current ? stateFromItem(ctx, current) : undefined,
  });

  const committed = (input: CommitPollInput, written: readonly string[], present: readonly string[]) =>
    ({
      kind: 'Committed',
      version: input.expectedVersion + 1,
      eventsWritten: written,
      eventsAlreadyPresent: present,
    }) as const;

  /**
   * State (+ schedule) + events in one transaction. An event id already in the log cancels the
   * transaction with ConditionalCheckFailed on its action: those events are dropped (they are
   * logged already, first write wins) and the transaction is retried without them, so a retry of
   * the same poll never fails forever on its own earlier events.
   */
  const transact = async (
    input: CommitPollInput,
    events: readonly EventEnvelope[],
  ): Promise<CommitPollResult> => {
    const schedule = scheduleAction(input);
    const fixed = schedule ? 2 : 1;
    let pending = [...events];
    const alreadyPresent: string[] = [];
    let conflicts = 0;
    for (;;) {
      try {
        if (pending.length === 0 && !schedule) {
          // Nothing but the state: a plain conditional UpdateItem costs half a transaction.
          await doc.send(new UpdateCommand(stateUpdate(input)));
        } else {
          await doc.send(
            new TransactWriteCommand({
              TransactItems: [
                { Update: stateUpdate(input) },
                ...(schedule ? [{ Update: schedule }] : []),
                ...pending.map((event) => ({
                  Put: {
                    TableName,
                    Item: eventItem(event, ctx.eventRetentionMs),
                    ConditionExpression: 'attribute_not_exists(pk)',
                  },
                })),
              ],
            }),
          );
        }
        return committed(
          input,
          pending.map((e) => e.id),
          alreadyPresent,
        );
      } catch (error) {
        const reasons = refusalReasons(error);
        if (!reasons) {
          throw storeFailure(ctx, 'TransactWriteItems commit poll', error, { vehicleId: input.vehicleId });
        }
        if (reasons[0]?.code === 'ConditionalCheckFailed') return conflict(input, reasons[0].item);
        if (schedule && reasons[1]?.code === 'ConditionalCheckFailed') {
          throw invalidInput('schedule', `vehicle ${input.vehicleId} does not exist`, {
            vehicleId: input.vehicleId,
          });
        }
        const present = pending.filter((_, i) => reasons[fixed + i]?.code === 'ConditionalCheckFailed');
        if (present.length > 0) {
          alreadyPresent.push(...present.map((e) => e.id));
          pending = pending.filter((e) => !present.includes(e));
          continue;
        }
        if (
          reasons.some((r) => r.code === 'TransactionConflict') &&
          conflicts < TRANSACTION_CONFLICT_RETRIES
        ) {
          conflicts += 1;
          // Another transaction holds one of our items: back off briefly, then the condition decides.
          await sleep(fullJitter(backoffCeiling(conflicts + 1, 10), Math.random));
          continue;
        }
        throw storeFailure(ctx, 'TransactWriteItems commit poll', error, {
          vehicleId: input.vehicleId,
          reasons: reasons.map((r) => r.code).join(','),
        });
      }
    }
  };

  return {
    async getState(vehicleId) {
      requireId('vehicleId', vehicleId);
      const item = await getConsistent(ctx, keys.vehicleState(vehicleId), 'GetItem vehicle state', {
        vehicleId,
      });
      return item ? stateFromItem(ctx, item) : undefined;
    },

    async getVehicleWithState(vehicleId) {
      requireId('vehicleId', vehicleId);
      let items: Item[];
      try {
        // The vehicle and its state share the partition `VEH#<id>`: one Query reads both.
        const out = await doc.send(
          new QueryCommand({
            TableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': keys.vehicle(vehicleId).pk },
            ConsistentRead: true,
          }),
        );
        items = out.Items ?? [];
      } catch (error) {
        throw storeFailure(ctx, 'Query vehicle with state', error, { vehicleId });
      }
      const vehicleItem = items.find((item) => item.sk === keys.vehicle(vehicleId).sk);
      // A state written under the vehicle id before the VIN keying (core/store/identity.ts).
      const legacyItem = items.find((item) => item.sk === keys.vehicleState(vehicleId).sk);
      const vehicle = vehicleItem ? vehicleFromItem(ctx, vehicleItem) : undefined;
      const identity = vehicle ? stateKeyOf(vehicle) : vehicleId;
      // The physical vehicle's state lives in its identity's partition: one more consistent read.
      const identityItem =
        identity === vehicleId
          ? undefined
          : await getConsistent(ctx, keys.vehicleState(identity), 'GetItem identity state', {
              vehicleId,
            });
      const stateItem = identityItem ?? legacyItem;
      return { vehicle, state: stateItem ? stateFromItem(ctx, stateItem) : undefined };
    },

    async commitPoll(input) {
      const events = validateCommit(input);
      const actions = events.length + (input.schedule ? 2 : 1);
      const bytes =
        Buffer.byteLength(input.state) +
        events.reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e)), 0);
      if (actions <= MAX_TRANSACTION_ACTIONS && bytes <= MAX_TRANSACTION_BYTES)
        return transact(input, events);
      // Too many events for one transaction: events first, state last. Safe because ids are
      // deterministic: if the state commit then loses the race or the worker dies, the next diff
      // (ours or the winner's) finds the same changes with the same ids, whose puts are no-ops; the
      // events already logged describe changes that really were observed, and are published once.
      const appended = await appendEvents(ctx, events);
      const result = await transact(input, []);
      if (result.kind !== 'Committed') return result;
      return committed(input, appended.written, appended.alreadyPresent);
    },
  };
}
