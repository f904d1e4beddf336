import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type EventEnvelope, envelopeSchema } from '../../core/events/envelope';
import {
  decodeCursor,
  eventExpiresAt,
  eventSortKey,
  isExpired,
  iso,
  liveEventRange,
  prepareEvents,
  requireEpochMs,
  requireId,
  requireIsoDate,
  requirePageLimit,
  requireTypes,
} from '../../core/store/logic';
import type { AppendResult, EventLog, EventTimeQuery } from '../../core/store/ports';
import type { StoredEvent } from '../../core/store/records';
import {
  type Item,
  keys,
  malformed,
  mapConcurrent,
  pageOf,
  putIfAbsent,
  queryPage,
  queryRange,
  type RangeQuery,
  storeFailure,
  type TableContext,
  writeIf,
} from './common';
import { INDEX } from './table';

/** Conditional puts and updates in flight at once (per call). */
const WRITE_CONCURRENCY = 10;

/**
 * One event of the log. The envelope is kept as its JSON text (exactly what was detected, never
 * re-shaped by the marshaller); the key attributes give the three time-ordered views.
 */
export function eventItem(event: EventEnvelope, retentionMs: number): Item {
  const sortKey = eventSortKey(event);
  return {
    ...keys.event(event.id),
    entity: 'Event',
    id: event.id,
    eventType: event.type,
    detectedAt: event.detectedAt,
    envelope: JSON.stringify(event),
    published: false,
    expiresAt: eventExpiresAt(event, retentionMs),
    ...(event.vehicle !== undefined
      ? { vehicleId: event.vehicle.id, gsi1pk: keys.eventsOfVehicle(event.vehicle.id), gsi1sk: sortKey }
      : {}),
    gsi2pk: keys.eventsOfDay(event.detectedAt.slice(0, 10)),
    gsi2sk: sortKey,
    // Sparse index: removed when published, so the index only ever holds the backlog.
    unpublished: keys.unpublished,
  };
}

export function storedEventFromItem(ctx: TableContext, item: Item): StoredEvent {
  const key = String(item.pk);
  if (typeof item.envelope !== 'string') throw malformed(ctx, 'event', 'envelope', key);
  let envelope: EventEnvelope;
  try {
    envelope = envelopeSchema.parse(JSON.parse(item.envelope));
  } catch {
    throw malformed(ctx, 'event', 'envelope', key);
  }
  if (typeof item.expiresAt !== 'number') throw malformed(ctx, 'event', 'expiresAt', key);
  return {
    envelope,
    published: item.published === true,
    ...(typeof item.publishedAt === 'string' ? { publishedAt: item.publishedAt } : {}),
    expiresAt: item.expiresAt,
  };
}

/**
 * Idempotent by id: one conditional PutItem per event (`attribute_not_exists(pk)`), so an id
 * already in the log keeps its first version and is reported as already present. Cheaper than a
 * transaction (1 WCU instead of 2 per event) and no event can fail the others.
 */
export async function appendEvents(
  ctx: TableContext,
  events: readonly EventEnvelope[],
): Promise<AppendResult> {
  const outcomes = await mapConcurrent(events, WRITE_CONCURRENCY, (event) =>
    putIfAbsent(ctx, eventItem(event, ctx.eventRetentionMs), 'PutItem event', { eventId: event.id }),
  );
  return {
    written: events.filter((_, i) => outcomes[i]).map((e) => e.id),
    alreadyPresent: events.filter((_, i) => !outcomes[i]).map((e) => e.id),
  };
}

function liveFilter(now: number, types: readonly string[] | undefined): NonNullable<RangeQuery['filter']> {
  const names: Record<string, string> = { '#expiresAt': 'expiresAt' };
  const values: Record<string, unknown> = { ':nowSeconds': now / 1000 };
  let expression = '#expiresAt > :nowSeconds';
  if (types !== undefined) {
    names['#eventType'] = 'eventType';
    const placeholders = types.map((type, i) => {
      values[`:type${i}`] = type;
      return `:type${i}`;
    });
    expression += ` AND #eventType IN (${placeholders.join(', ')})`;
  }
  return { expression, names, values };
}

/** UTC days from `from`'s to `to`'s, inclusive. */
function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  let day = Date.parse(`${from.slice(0, 10)}T00:00:00.000Z`);
  const last = Date.parse(`${to.slice(0, 10)}T00:00:00.000Z`);
  for (; day <= last; day += 24 * 60 * 60 * 1000) days.push(new Date(day).toISOString().slice(0, 10));
  return days;
}

export function createDynamoEventLog(ctx: TableContext): EventLog {
  const { tableName: TableName, doc } = ctx;

  const parse = (item: Item) => storedEventFromItem(ctx, item);

  const validate = (query: EventTimeQuery) => {
    requireEpochMs('now', query.now);
    if (query.since !== undefined) requireIsoDate('since', query.since);
    if (query.until !== undefined) requireIsoDate('until', query.until);
    return {
      limit: requirePageLimit(query.limit),
      after: decodeCursor(query.cursor),
      types: requireTypes(query.types),
    };
  };

  return {
    async append(events, now) {
      requireEpochMs('now', now);
      return appendEvents(ctx, prepareEvents(events));
    },

    async get(eventId, now) {
      requireId('eventId', eventId);
      requireEpochMs('now', now);
      try {
        const { Item: item } = await doc.send(new GetCommand({ TableName, Key: keys.event(eventId) }));
        if (!item || isExpired(item.expiresAt as number | undefined, now)) return undefined;
        return storedEventFromItem(ctx, item);
      } catch (error) {
        throw storeFailure(ctx, 'GetItem event', error, { eventId });
      }
    },

    async listByVehicle(query) {
      requireId('vehicleId', query.vehicleId);
      const { limit, after, types } = validate(query);
      const range = liveEventRange(query.since, query.until, query.now, ctx.eventRetentionMs);
      if (range === undefined || (after !== undefined && after >= range.to)) return { items: [] };
      const items = await queryRange(
        ctx,
        {
          index: INDEX.gsi1,
          partitionName: 'gsi1pk',
          partitionValue: keys.eventsOfVehicle(query.vehicleId),
          sortName: 'gsi1sk',
          from: range.from,
          // `<to>` sorts before every `<to>#<id>`: BETWEEN gives the exclusive upper bound.
          to: range.to,
          ...(after !== undefined ? { after } : {}),
          filter: liveFilter(query.now, types),
        },
        limit + 1,
      );
      return pageOf(items, limit, 'gsi1sk', parse);
    },

    async listByTime(query) {
      requireIsoDate('since', query.since);
      requireIsoDate('until', query.until);
      const { limit, after, types } = validate(query);
      const range = liveEventRange(query.since, query.until, query.now, ctx.eventRetentionMs);
      if (range === undefined || (after !== undefined && after >= range.to)) return { items: [] };
      const start = after !== undefined && after > range.from ? after : range.from;
      const items: Item[] = [];
      for (const day of daysBetween(start, range.to)) {
        const found = await queryRange(
          ctx,
          {
            index: INDEX.gsi2,
            partitionName: 'gsi2pk',
            partitionValue: keys.eventsOfDay(day),
            sortName: 'gsi2sk',
            from: range.from,
            to: range.to,
            ...(after !== undefined ? { after } : {}),
            filter: liveFilter(query.now, types),
          },
          limit + 1 - items.length,
        );
        items.push(...found);
        if (items.length > limit) break;
      }
      return pageOf(items, limit, 'gsi2sk', parse);
    },

    async listUnpublished(query) {
      requireEpochMs('now', query.now);
      return queryPage(
        ctx,
        {
          index: INDEX.unpublished,
          partitionName: 'unpublished',
          partitionValue: keys.unpublished,
          sortName: 'gsi2sk',
          filter: liveFilter(query.now, undefined),
        },
        query,
        parse,
      );
    },

    async markPublished(eventIds, now) {
      requireEpochMs('now', now);
      eventIds.forEach((id, index) => {
        requireId(`eventIds[${index}]`, id);
      });
      await mapConcurrent([...new Set(eventIds)], WRITE_CONCURRENCY, (eventId) => {
        const update = new UpdateCommand({
          TableName,
          Key: keys.event(eventId),
          UpdateExpression: 'SET #published = :true, #publishedAt = :now REMOVE #unpublished',
          ConditionExpression: 'attribute_exists(pk) AND #expiresAt > :nowSeconds AND #published = :false',
          ExpressionAttributeNames: {
            '#published': 'published',
            '#publishedAt': 'publishedAt',
            '#unpublished': 'unpublished',
            '#expiresAt': 'expiresAt',
          },
          ExpressionAttributeValues: {
            ':true': true,
            ':false': false,
            ':now': iso(now),
            ':nowSeconds': now / 1000,
          },
        });
        // Unknown, expired or already published: the condition fails and there is nothing to do.
        return writeIf(ctx, () => doc.send(update), 'UpdateItem mark published', { eventId });
      });
    },
  };
}
