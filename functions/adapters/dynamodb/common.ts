import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateQuery,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { StoreError } from '../../core/store/errors';
import { decodeCursor, encodeCursor, requirePageLimit } from '../../core/store/logic';
import type { Page, PageRequest } from '../../core/store/records';

/** What every adapter of the table shares. */
export interface TableContext {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
  /** How long events stay in the log (TTL from `detectedAt`). */
  readonly eventRetentionMs: number;
  /** Partitions of the due index; changing it needs every vehicle's `gsi2pk` rewritten. */
  readonly dueShards: number;
}

/** An item as the DocumentClient returns it; parsed field by field by the codecs. */
export type Item = Record<string, unknown>;

/**
 * Key prefixes. One place, so the README's key table and the code cannot disagree.
 * Ids are used as is after the prefix: the prefix alone keeps entity kinds apart.
 */
export const keys = {
  enrollment: (id: string) => ({ pk: `ENR#${id}`, sk: 'ENR' }),
  fleetVin: (vin: string) => ({ pk: `VIN#${vin}`, sk: 'VIN' }),
  vehicle: (id: string) => ({ pk: `VEH#${id}`, sk: 'VEH' }),
  vehicleState: (id: string) => ({ pk: `VEH#${id}`, sk: 'STATE' }),
  event: (id: string) => ({ pk: `EVT#${id}`, sk: 'EVT' }),
  lease: (name: string) => ({ pk: `LEASE#${name}`, sk: 'LEASE' }),
  rateBudget: (clientId: string) => ({ pk: `RATE#${clientId}`, sk: 'RATE' }),
  enrollmentsByStatus: (status: string) => `ENRSTATUS#${status}`,
  allEnrollments: 'ENROLLMENTS',
  vehiclesOfEnrollment: (enrollmentId: string) => `ENRVEH#${enrollmentId}`,
  eventsOfVehicle: (vehicleId: string) => `VEHEVT#${vehicleId}`,
  /** Events by detection day (UTC), for replay across vehicles. */
  eventsOfDay: (day: string) => `EVTDAY#${day}`,
  dueShard: (shard: number) => `DUE#${shard}`,
  /** The constant partition of the sparse unpublished index. */
  unpublished: 'U',
} as const;

/** FNV-1a: a stable shard of a vehicle id (the due index spreads vehicles over `shards` partitions). */
export function shardOf(id: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i += 1) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % shards;
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

export function isConditionalCheckFailed(error: unknown): boolean {
  return errorName(error) === 'ConditionalCheckFailedException';
}

export function isTransactionCanceled(error: unknown): boolean {
  return errorName(error) === 'TransactionCanceledException';
}

/**
 * The current item a failed condition returned (`ReturnValuesOnConditionCheckFailure: ALL_OLD`).
 * lib-dynamodb unmarshalls outputs, not errors: the SDK error carries it as attribute values.
 */
export function conditionFailedItem(error: unknown): Item | undefined {
  const raw = (error as { Item?: Record<string, AttributeValue> }).Item;
  return raw ? unmarshall(raw) : undefined;
}

export interface CancellationReason {
  readonly code: string;
  readonly item: Item | undefined;
}

/** One reason per action of the transaction, in order (`None` for the actions that passed). */
export function cancellationReasons(error: unknown): CancellationReason[] {
  const reasons =
    (error as { CancellationReasons?: { Code?: string; Item?: Record<string, AttributeValue> }[] })
      .CancellationReasons ?? [];
  return reasons.map((reason) => ({
    code: reason.Code ?? 'None',
    item: reason.Item ? unmarshall(reason.Item) : undefined,
  }));
}

/**
 * Why a write was refused, one reason per action: a single write's ConditionalCheckFailedException
 * as one such reason, a transaction's as its TransactionCanceledException lists them (the only way
 * TransactWriteItems reports a failed condition); undefined for any other error.
 */
export function refusalReasons(error: unknown): CancellationReason[] | undefined {
  if (isConditionalCheckFailed(error))
    return [{ code: 'ConditionalCheckFailed', item: conditionFailedItem(error) }];
  return isTransactionCanceled(error) ? cancellationReasons(error) : undefined;
}

/** Any DynamoDB failure we do not handle as an outcome, with the context to act on it. */
export function storeFailure(
  ctx: Pick<TableContext, 'tableName'>,
  operation: string,
  error: unknown,
  context: Record<string, string> = {},
): StoreError {
  if (error instanceof StoreError) return error;
  const name = errorName(error);
  const message = error instanceof Error ? error.message : String(error);
  return new StoreError(
    'StoreFailure',
    `DynamoDB ${operation} on table ${ctx.tableName} failed: ${name}: ${message}`,
    { table: ctx.tableName, operation, awsError: name, ...context },
    { cause: error },
  );
}

export function malformed(
  ctx: Pick<TableContext, 'tableName'>,
  what: string,
  field: string,
  key: string,
): StoreError {
  return new StoreError(
    'Malformed',
    `${what} ${key} in table ${ctx.tableName}: ${field} is missing or invalid`,
    {
      table: ctx.tableName,
      key,
      field,
    },
  );
}

export interface RangeQuery {
  readonly index?: string;
  readonly partitionName: string;
  readonly partitionValue: string;
  readonly sortName: string;
  /** Exclusive lower bound (a cursor's `after`). */
  readonly after?: string;
  /** Inclusive lower bound. */
  readonly from?: string;
  /** Inclusive upper bound. */
  readonly to?: string;
  readonly filter?: {
    readonly expression: string;
    readonly names: Record<string, string>;
    readonly values: Record<string, unknown>;
  };
  readonly consistentRead?: boolean;
}

/**
 * Reads matching items of one partition in sort-key order until `want` are collected (a filter
 * can make DynamoDB pages shorter than their Limit, so this reads on through the SDK's paginator).
 */
export async function queryRange(ctx: TableContext, query: RangeQuery, want: number): Promise<Item[]> {
  const names: Record<string, string> = { '#p': query.partitionName, ...query.filter?.names };
  const values: Record<string, unknown> = { ':p': query.partitionValue, ...query.filter?.values };
  const lower = query.after ?? query.from;
  let condition = '#p = :p';
  if (lower !== undefined || query.to !== undefined) names['#s'] = query.sortName;
  if (lower !== undefined && query.to !== undefined) {
    condition += ' AND #s BETWEEN :lo AND :hi';
    values[':lo'] = lower;
    values[':hi'] = query.to;
  } else if (lower !== undefined) {
    condition += ' AND #s >= :lo';
    values[':lo'] = lower;
  } else if (query.to !== undefined) {
    condition += ' AND #s <= :hi';
    values[':hi'] = query.to;
  }
  const input: QueryCommandInput = {
    TableName: ctx.tableName,
    KeyConditionExpression: condition,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ...(query.index !== undefined ? { IndexName: query.index } : {}),
    ...(query.filter !== undefined ? { FilterExpression: query.filter.expression } : {}),
    ...(query.consistentRead ? { ConsistentRead: true } : {}),
  };
  const out: Item[] = [];
  // The SDK's paginator follows LastEvaluatedKey; leaving the loop stops it (no further page read).
  const pages = paginateQuery({ client: ctx.doc, pageSize: Math.min(Math.max(want + 1, 10), 1000) }, input);
  try {
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        // `after` is exclusive: BETWEEN/>= include it, and sort keys are unique per item.
        if (query.after !== undefined && item[query.sortName] === query.after) continue;
        out.push(item);
        if (out.length >= want) return out;
      }
    }
  } catch (error) {
    throw storeFailure(ctx, `Query${query.index ? ` ${query.index}` : ''}`, error, {
      partition: query.partitionValue,
    });
  }
  return out;
}

/**
 * One page out of `items` read in sort-key order with one item more than `limit` asked for: that
 * extra item only tells that a next page exists, whose cursor is the last item's sort key.
 */
export function pageOf<T>(
  items: readonly Item[],
  limit: number,
  sortName: string,
  parse: (item: Item) => T,
): Page<T> {
  const page = items.slice(0, limit);
  const last = page.at(-1);
  const parsed = page.map(parse);
  return items.length > limit && last !== undefined
    ? { items: parsed, cursor: encodeCursor(String(last[sortName])) }
    : { items: parsed };
}

/** One page of a partition: the request's cursor is the sort key the page starts after. */
export async function queryPage<T>(
  ctx: TableContext,
  query: Omit<RangeQuery, 'after'>,
  request: PageRequest,
  parse: (item: Item) => T,
): Promise<Page<T>> {
  const limit = requirePageLimit(request.limit);
  const after = decodeCursor(request.cursor);
  const items = await queryRange(ctx, after !== undefined ? { ...query, after } : query, limit + 1);
  return pageOf(items, limit, query.sortName, parse);
}

/** Runs `work` over `items` with at most `concurrency` in flight; results in input order. */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const runners = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index] as T);
    }
  });
  await Promise.all(runners);
  return results;
}

/**
 * Sends one conditional write (PutItem, UpdateItem or DeleteItem): true when written, false when its
 * condition did not hold (DynamoDB then writes nothing and answers ConditionalCheckFailedException);
 * any other failure is thrown.
 */
export async function writeIf(
  ctx: Pick<TableContext, 'tableName'>,
  send: () => Promise<unknown>,
  operation: string,
  context: Record<string, string>,
): Promise<boolean> {
  try {
    await send();
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw storeFailure(ctx, operation, error, context);
  }
}

/**
 * PutItem only where no item has this key yet: true when written, false when one already existed
 * (ids are deterministic, so "already there" is an answer, not an error).
 */
export async function putIfAbsent(
  ctx: Pick<TableContext, 'doc' | 'tableName'>,
  item: Item,
  operation: string,
  context: Record<string, string>,
): Promise<boolean> {
  const put = { TableName: ctx.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' };
  return writeIf(ctx, () => ctx.doc.send(new PutCommand(put)), operation, context);
}

/** A strongly consistent GetItem; undefined when there is no such item. */
export async function getConsistent(
  ctx: Pick<TableContext, 'doc' | 'tableName'>,
  key: Item,
  operation: string,
  context: Record<string, string>,
): Promise<Item | undefined> {
  try {
    const out = await ctx.doc.send(
      new GetCommand({ TableName: ctx.tableName, Key: key, ConsistentRead: true }),
    );
    return out.Item;
  } catch (error) {
    throw storeFailure(ctx, operation, error, context);
  }
}
