import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EventEnvelope } from '../../core/events/envelope';
import { invalidInput } from '../../core/store/errors';
import {
  decodeCursor,
  iso,
  prepareEvents,
  requireCiphertext,
  requireId,
  requireIsoDate,
  requirePageLimit,
  requireVin,
  validateEnrollment,
} from '../../core/store/logic';
import type {
  CreateEnrollmentResult,
  EnrollmentStore,
  SaveTokensResult,
  TokenUpdate,
} from '../../core/store/ports';
import {
  type Enrollment,
  type EnrollmentStatus,
  enrollmentStatuses,
  type FleetContractEnrollment,
} from '../../core/store/records';
import {
  getConsistent,
  type Item,
  keys,
  malformed,
  pageOf,
  putIfAbsent,
  queryRange,
  refusalReasons,
  storeFailure,
  type TableContext,
} from './common';
import { eventItem } from './events';
import { INDEX } from './table';

function str(item: Item, field: string): string | undefined {
  const value = item[field];
  return typeof value === 'string' ? value : undefined;
}

export function enrollmentFromItem(ctx: TableContext, item: Item): Enrollment {
  const key = String(item.pk);
  const need = (field: string): string => {
    const value = str(item, field);
    if (value === undefined) throw malformed(ctx, 'enrollment', field, key);
    return value;
  };
  const status = need('status');
  if (!enrollmentStatuses.includes(status as EnrollmentStatus))
    throw malformed(ctx, 'enrollment', 'status', key);
  const base = {
    id: need('id'),
    brand: need('brand'),
    status: status as EnrollmentStatus,
    createdAt: need('createdAt'),
    updatedAt: need('updatedAt'),
  };
  const kind = need('kind');
  if (kind === 'fleet-contract') {
    return { ...base, kind, vin: need('vin'), contract: need('contract') };
  }
  if (kind !== 'oauth-user') throw malformed(ctx, 'enrollment', 'kind', key);
  const userId = str(item, 'userId');
  const tokenCiphertext = str(item, 'tokenCiphertext');
  const tokenExpiresAt = str(item, 'tokenExpiresAt');
  return {
    ...base,
    kind,
    ...(userId !== undefined ? { userId } : {}),
    ...(tokenCiphertext !== undefined ? { tokenCiphertext } : {}),
    ...(tokenExpiresAt !== undefined ? { tokenExpiresAt } : {}),
  };
}

function enrollmentItem(enrollment: Enrollment): Item {
  return {
    ...keys.enrollment(enrollment.id),
    entity: 'Enrollment',
    ...enrollment,
    gsi1pk: keys.enrollmentsByStatus(enrollment.status),
    gsi1sk: enrollment.id,
    gsi2pk: keys.allEnrollments,
    gsi2sk: enrollment.id,
  };
}

export function createDynamoEnrollmentStore(ctx: TableContext): EnrollmentStore {
  const { tableName: TableName, doc } = ctx;

  const getEnrollment = async (enrollmentId: string): Promise<Enrollment | undefined> => {
    const item = await getConsistent(ctx, keys.enrollment(enrollmentId), 'GetItem enrollment', {
      enrollmentId,
    });
    return item ? enrollmentFromItem(ctx, item) : undefined;
  };

  const setStatus = (
    enrollmentId: string,
    status: EnrollmentStatus,
    now: number,
  ): {
    TableName: string;
    Key: Record<string, string>;
    ExpressionAttributeNames: Record<string, string>;
    ExpressionAttributeValues: Record<string, unknown>;
    UpdateExpression: string;
    ConditionExpression?: string;
  } => ({
    TableName,
    Key: keys.enrollment(enrollmentId),
    ExpressionAttributeNames: { '#status': 'status', '#gsi1pk': 'gsi1pk', '#updatedAt': 'updatedAt' },
    ExpressionAttributeValues: {
      ':status': status,
      ':gsi1pk': keys.enrollmentsByStatus(status),
      ':now': iso(now),
    },
    UpdateExpression: 'SET #status = :status, #gsi1pk = :gsi1pk, #updatedAt = :now',
  });

  return {
    async create(enrollment): Promise<CreateEnrollmentResult> {
      validateEnrollment(enrollment);
      const putEnrollment = {
        TableName,
        Item: enrollmentItem(enrollment),
        ConditionExpression: 'attribute_not_exists(pk)',
      };
      if (enrollment.kind !== 'fleet-contract') {
        const created = await putIfAbsent(ctx, putEnrollment.Item, 'PutItem enrollment', {
          enrollmentId: enrollment.id,
        });
        return created ? { kind: 'Created' } : { kind: 'AlreadyExists', enrollmentId: enrollment.id };
      }
      // The VIN uniqueness item and the enrollment are written together or not at all.
      try {
        await doc.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: putEnrollment },
              {
                Put: {
                  TableName,
                  Item: { ...keys.fleetVin(enrollment.vin), entity: 'FleetVin', enrollmentId: enrollment.id },
                  ConditionExpression: 'attribute_not_exists(pk)',
                  ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
                },
              },
            ],
          }),
        );
        return { kind: 'Created' };
      } catch (error) {
        const reasons = refusalReasons(error);
        if (!reasons) {
          throw storeFailure(ctx, 'TransactWriteItems create enrollment', error, {
            enrollmentId: enrollment.id,
          });
        }
        const [enrollmentReason, vinReason] = reasons;
        if (enrollmentReason?.code === 'ConditionalCheckFailed') {
          return { kind: 'AlreadyExists', enrollmentId: enrollment.id };
        }
        if (vinReason?.code === 'ConditionalCheckFailed') {
          return {
            kind: 'DuplicateFleetVin',
            vin: enrollment.vin,
            existingEnrollmentId: String(vinReason.item?.enrollmentId ?? 'unknown'),
          };
        }
        throw storeFailure(ctx, 'TransactWriteItems create enrollment', error, {
          enrollmentId: enrollment.id,
        });
      }
    },

    async get(enrollmentId) {
      requireId('enrollmentId', enrollmentId);
      return getEnrollment(enrollmentId);
    },

    async list(query = {}) {
      const limit = requirePageLimit(query.limit);
      if (query.status !== undefined && !enrollmentStatuses.includes(query.status)) {
        throw invalidInput('status', `must be one of ${enrollmentStatuses.join(', ')}`);
      }
      const after = decodeCursor(query.cursor);
      const range =
        query.status !== undefined
          ? {
              index: INDEX.gsi1,
              partitionName: 'gsi1pk',
              partitionValue: keys.enrollmentsByStatus(query.status),
              sortName: 'gsi1sk',
            }
          : {
              index: INDEX.gsi2,
              partitionName: 'gsi2pk',
              partitionValue: keys.allEnrollments,
              sortName: 'gsi2sk',
            };
      const items = await queryRange(ctx, after !== undefined ? { ...range, after } : range, limit + 1);
      return pageOf(items, limit, range.sortName, (item) => enrollmentFromItem(ctx, item));
    },

    async findByFleetVin(vin) {
      requireVin('vin', vin);
      let enrollmentId: unknown;
      try {
        const { Item: item } = await doc.send(
          new GetCommand({ TableName, Key: keys.fleetVin(vin), ConsistentRead: true }),
        );
        enrollmentId = item?.enrollmentId;
      } catch (error) {
        throw storeFailure(ctx, 'GetItem fleet VIN', error, { vin });
      }
      if (typeof enrollmentId !== 'string') return undefined;
      const found = await getEnrollment(enrollmentId);
      return found?.kind === 'fleet-contract' ? (found as FleetContractEnrollment) : undefined;
    },

    async saveTokens(enrollmentId: string, tokens: TokenUpdate, now: number): Promise<SaveTokensResult> {
      requireId('enrollmentId', enrollmentId);
      requireCiphertext('tokens.tokenCiphertext', tokens.tokenCiphertext);
      requireIsoDate('tokens.tokenExpiresAt', tokens.tokenExpiresAt);
      const base = setStatus(enrollmentId, 'active', now);
      try {
        const { Attributes: old } = await doc.send(
          new UpdateCommand({
            ...base,
            UpdateExpression: `${base.UpdateExpression}, #ct = :ct, #exp = :exp${tokens.userId !== undefined ? ', #userId = :userId' : ''}`,
            ExpressionAttributeNames: {
              ...base.ExpressionAttributeNames,
              '#ct': 'tokenCiphertext',
              '#exp': 'tokenExpiresAt',
              '#kind': 'kind',
              ...(tokens.userId !== undefined ? { '#userId': 'userId' } : {}),
            },
            ExpressionAttributeValues: {
              ...base.ExpressionAttributeValues,
              ':ct': tokens.tokenCiphertext,
              ':exp': tokens.tokenExpiresAt,
              ':oauth': 'oauth-user',
              ':unenrolled': 'unenrolled',
              ...(tokens.userId !== undefined ? { ':userId': tokens.userId } : {}),
            },
            ConditionExpression: 'attribute_exists(pk) AND #kind = :oauth AND #status <> :unenrolled',
            ReturnValues: 'ALL_OLD',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return { kind: 'Saved', reactivated: old?.status === 'reauthorization_required' };
      } catch (error) {
        const refused = refusalReasons(error);
        if (!refused) throw storeFailure(ctx, 'UpdateItem save tokens', error, { enrollmentId });
        const current = refused[0]?.item;
        if (current?.kind !== 'oauth-user') return { kind: 'NotFound' };
        return { kind: 'NotAllowed', status: current.status as EnrollmentStatus };
      }
    },

    async markReauthorizationRequired(enrollmentId: string, now: number, event?: EventEnvelope) {
      requireId('enrollmentId', enrollmentId);
      const events = event ? prepareEvents([event]) : [];
      const transition = {
        ...setStatus(enrollmentId, 'reauthorization_required', now),
        ConditionExpression: '#status = :active',
      };
      transition.ExpressionAttributeValues = { ...transition.ExpressionAttributeValues, ':active': 'active' };
      let withEvent = events[0];
      for (;;) {
        try {
          if (withEvent === undefined) {
            await doc.send(new UpdateCommand(transition));
          } else {
            await doc.send(
              new TransactWriteCommand({
                TransactItems: [
                  { Update: transition },
                  {
                    Put: {
                      TableName,
                      Item: eventItem(withEvent, ctx.eventRetentionMs),
                      ConditionExpression: 'attribute_not_exists(pk)',
                    },
                  },
                ],
              }),
            );
          }
          return true;
        } catch (error) {
          const reasons = refusalReasons(error);
          if (!reasons) throw storeFailure(ctx, 'mark reauthorization_required', error, { enrollmentId });
          const [statusReason, eventReason] = reasons;
          if (statusReason?.code === 'ConditionalCheckFailed') return false;
          // The event id is already logged (first write wins): make the transition alone.
          if (eventReason?.code === 'ConditionalCheckFailed') {
            withEvent = undefined;
            continue;
          }
          throw storeFailure(ctx, 'TransactWriteItems mark reauthorization_required', error, {
            enrollmentId,
          });
        }
      }
    },

    async unenroll(enrollmentId, now) {
      requireId('enrollmentId', enrollmentId);
      const current = await getEnrollment(enrollmentId);
      if (!current || current.status === 'unenrolled') return false;
      const base = setStatus(enrollmentId, 'unenrolled', now);
      const update = {
        ...base,
        UpdateExpression: `${base.UpdateExpression} REMOVE #ct, #exp`,
        ExpressionAttributeNames: {
          ...base.ExpressionAttributeNames,
          '#ct': 'tokenCiphertext',
          '#exp': 'tokenExpiresAt',
        },
        ExpressionAttributeValues: { ...base.ExpressionAttributeValues, ':unenrolled': 'unenrolled' },
        ConditionExpression: 'attribute_exists(pk) AND #status <> :unenrolled',
      };
      try {
        if (current.kind === 'fleet-contract') {
          // Frees the VIN for a later enrollment, in the same write as the status.
          await doc.send(
            new TransactWriteCommand({
              TransactItems: [
                { Update: update },
                {
                  Delete: {
                    TableName,
                    Key: keys.fleetVin(current.vin),
                    ConditionExpression: 'attribute_not_exists(pk) OR enrollmentId = :id',
                    ExpressionAttributeValues: { ':id': enrollmentId },
                  },
                },
              ],
            }),
          );
        } else {
          await doc.send(new UpdateCommand(update));
        }
        return true;
      } catch (error) {
        // The status update's condition, alone or as the transaction's first action.
        if (refusalReasons(error)?.[0]?.code === 'ConditionalCheckFailed') return false;
        throw storeFailure(ctx, 'unenroll', error, { enrollmentId });
      }
    },
  };
}
