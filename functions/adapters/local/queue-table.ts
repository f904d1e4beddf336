/**
 * The local durable queue's table (one DynamoDB Local table for every logical queue: pk `queue`,
 * sk `id`, local secondary index `byVisibleAt` on the epoch ms a message becomes visible), its
 * item shape and its receipts (`<token>.<base64url id>`, fresh per receive), and the item-level
 * writes the queue shares (a move between queues, a claimed item as received).
 */
import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { ReceivedMessage } from '../../core/queue/ports';
import { cancellationReasons, isConditionalCheckFailed, isTransactionCanceled } from '../dynamodb/common';

export const QUEUE_INDEX = 'byVisibleAt';

export interface QueueItem {
  queue: string;
  id: string;
  body: string;
  visibleAt: number;
  sentAt: number;
  receiveCount: number;
  receipt?: string;
  notBefore?: number;
  groupKey?: string;
  dedupId?: string;
  deadLetteredAt?: number;
  sourceQueue?: string;
}

/** DynamoDB's own rule, checked here so a bad `--data-dir` config gets a sentence, not a stack. */
export const checkTableName = (tableName: string): void => {
  if (!/^[A-Za-z0-9_.-]{3,255}$/.test(tableName)) {
    throw new RangeError(
      `queue table name "${tableName}" is invalid: 3–255 characters among a-z, A-Z, 0-9, '_', '-', '.'`,
    );
  }
};

export const createQueueTable = async (client: DynamoDBClient, tableName: string): Promise<void> => {
  checkTableName(tableName);
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'queue', AttributeType: 'S' },
          { AttributeName: 'id', AttributeType: 'S' },
          { AttributeName: 'visibleAt', AttributeType: 'N' },
        ],
        KeySchema: [
          { AttributeName: 'queue', KeyType: 'HASH' },
          { AttributeName: 'id', KeyType: 'RANGE' },
        ],
        LocalSecondaryIndexes: [
          {
            IndexName: QUEUE_INDEX,
            KeySchema: [
              { AttributeName: 'queue', KeyType: 'HASH' },
              { AttributeName: 'visibleAt', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
      }),
    );
  } catch (error) {
    // Restarting on a persisted --data-dir: the table is already there, with its messages.
    if (!(error instanceof Error && error.name === 'ResourceInUseException')) throw error;
  }
};

export const encodeReceipt = (id: string, token: string): string =>
  `${token}.${Buffer.from(id).toString('base64url')}`;

export const decodeReceipt = (receipt: string): { id: string; token: string } | undefined => {
  const dot = receipt.indexOf('.');
  if (dot <= 0 || dot === receipt.length - 1) return undefined;
  return { token: receipt.slice(0, dot), id: Buffer.from(receipt.slice(dot + 1), 'base64url').toString() };
};

export const errorName = (error: unknown): string => (error instanceof Error ? error.name : 'Unknown');
export const describe = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

/** A condition of the write failed (alone, or as the cancellation reason of a transaction). */
export const isConditionFailure = (error: unknown): boolean =>
  isConditionalCheckFailed(error) ||
  (isTransactionCanceled(error) &&
    cancellationReasons(error).some((reason) => reason.code === 'ConditionalCheckFailed'));

/** Moves a message to another queue of the table in one transaction: a conditional delete and a put. */
export async function moveItem(
  doc: DynamoDBDocumentClient,
  table: string,
  from: Pick<QueueItem, 'queue' | 'id'>,
  condition: { ConditionExpression: string; ExpressionAttributeValues?: Record<string, unknown> },
  item: Record<string, unknown>,
): Promise<void> {
  await doc.send(
    new TransactWriteCommand({
      TransactItems: [
        { Delete: { TableName: table, Key: { queue: from.queue, id: from.id }, ...condition } },
        { Put: { TableName: table, Item: item } },
      ],
    }),
  );
}

/** A claimed item as the consumer receives it, with its fresh receipt. */
export function receivedMessage<T>(claimed: QueueItem, receipt: string): ReceivedMessage<T> {
  let body: T;
  try {
    body = JSON.parse(claimed.body) as T;
  } catch {
    // Only a hand-edited table gets here; keep the raw text so the handler's parse names the problem.
    body = claimed.body as T;
  }
  return {
    id: claimed.id,
    body,
    receipt,
    receiveCount: claimed.receiveCount,
    sentAt: claimed.sentAt,
    ...(claimed.notBefore !== undefined ? { notBefore: claimed.notBefore } : {}),
    ...(claimed.groupKey !== undefined ? { groupKey: claimed.groupKey } : {}),
  };
}
