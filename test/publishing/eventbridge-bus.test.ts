import {
  EventBridgeClient,
  type PutEventsCommand,
  type PutEventsCommandOutput,
  type PutEventsResultEntry,
} from '@aws-sdk/client-eventbridge';
import { describe, expect, it } from 'vitest';
import { createEventBridgeBus, type PutEventsClient } from '../../functions/adapters/eventbridge/bus';
import {
  envelopeEntrySize,
  eventBridgeEntrySize,
  PUBLISH_LIMITS,
} from '../../functions/core/publishing/limits';
import { envelope, envelopeOfEntrySize, events } from './fixtures';

type Responder = (command: PutEventsCommand) => PutEventsResultEntry[] | Promise<PutEventsResultEntry[]>;

const fakeClient = (
  respond: Responder = (c) => (c.input.Entries ?? []).map((_, i) => ({ EventId: `eb-${i}` })),
) => {
  const calls: PutEventsCommand[] = [];
  const client: PutEventsClient = {
    async send(command) {
      calls.push(command);
      const entries = await respond(command);
      return {
        Entries: entries,
        FailedEntryCount: entries.filter((e) => e.ErrorCode).length,
        $metadata: {},
      } satisfies PutEventsCommandOutput;
    },
  };
  return { client, calls };
};

describe('EventBridge entry size (Calculating Amazon EventBridge PutEvents event entry size)', () => {
  it('counts Time as 14 bytes and Source, DetailType, Detail, Resources as UTF-8 bytes', () => {
    expect(eventBridgeEntrySize({ source: 'carhook', detailType: 'a.b', detail: '{"x":"é"}' })).toBe(
      7 + 3 + 10,
    );
    expect(
      eventBridgeEntrySize({
        source: 'carhook',
        detailType: 'a.b',
        time: new Date(),
        resources: ['r1', '€'],
      }),
    ).toBe(14 + 7 + 3 + 2 + 3);
  });

  it('sizes an envelope as the entry the adapter sends', async () => {
    const event = envelope('evt-1', { data: { note: 'naïve ünïcödé 🚗' } });
    const { client, calls } = fakeClient();
    const bus = createEventBridgeBus({ client, eventBusName: 'carhook', source: 'acme.carhook' });
    await bus.publish([event]);
    const entry = calls[0]?.input.Entries?.[0];
    const expected = eventBridgeEntrySize({
      source: entry?.Source ?? '',
      detailType: entry?.DetailType ?? '',
      detail: entry?.Detail ?? '',
      time: entry?.Time,
    });
    expect(bus.entrySize?.(event)).toBe(expected);
    expect(envelopeEntrySize(event, 'acme.carhook')).toBe(expected);
  });
});

describe('EventBridge bus adapter', () => {
  it('sends the envelope as Detail with the configured source, the type as DetailType and occurredAt as Time', async () => {
    const { client, calls } = fakeClient();
    const bus = createEventBridgeBus({ client, eventBusName: 'carhook-bus', source: 'acme.carhook' });
    const event = envelope('evt-1');
    expect(await bus.publish([event])).toEqual({ published: ['evt-1'], failed: [] });
    const entry = calls[0]?.input.Entries?.[0];
    expect(entry).toMatchObject({
      EventBusName: 'carhook-bus',
      Source: 'acme.carhook',
      DetailType: event.type,
    });
    expect(entry?.Time?.toISOString()).toBe(event.occurredAt);
    expect(JSON.parse(entry?.Detail ?? '')).toEqual(event);
    expect(entry?.Resources).toBeUndefined();
  });

  it('defaults the source to carhook', async () => {
    const { client, calls } = fakeClient();
    await createEventBridgeBus({ client, eventBusName: 'b' }).publish([envelope('e')]);
    expect(calls[0]?.input.Entries?.[0]?.Source).toBe('carhook');
  });

  it('splits into calls of at most 10 entries', async () => {
    const { client, calls } = fakeClient();
    const result = await createEventBridgeBus({ client, eventBusName: 'b' }).publish(events(23));
    expect(calls.map((c) => c.input.Entries?.length)).toEqual([10, 10, 3]);
    expect(result.published).toHaveLength(23);
  });

  it('keeps each call within 256 KB of entries, and a 256 KB entry alone is still sent', async () => {
    const { client, calls } = fakeClient();
    const bus = createEventBridgeBus({ client, eventBusName: 'b' });
    const big = [100_000, 100_000, 100_000, PUBLISH_LIMITS.maxEntryBytes].map((size, i) =>
      envelopeOfEntrySize(`big-${i}`, size),
    );
    expect(bus.entrySize?.(big[3] as never)).toBe(PUBLISH_LIMITS.maxEntryBytes);
    const result = await bus.publish(big);
    expect(calls.map((c) => c.input.Entries?.map((e) => JSON.parse(e.Detail ?? '').id))).toEqual([
      ['big-0', 'big-1'],
      ['big-2'],
      ['big-3'],
    ]);
    expect(result.failed).toEqual([]);
  });

  it('reports an entry over 256 KB as a permanent EntryTooLarge failure without sending it', async () => {
    const { client, calls } = fakeClient();
    const tooBig = envelopeOfEntrySize('huge', PUBLISH_LIMITS.maxEntryBytes + 1);
    const result = await createEventBridgeBus({ client, eventBusName: 'b' }).publish([
      tooBig,
      envelope('ok'),
    ]);
    expect(result.published).toEqual(['ok']);
    expect(result.failed).toEqual([
      expect.objectContaining({
        id: 'huge',
        retryable: false,
        code: 'EntryTooLarge',
        message: expect.stringMatching(/262145 bytes/),
      }),
    ]);
    expect(calls).toHaveLength(1);
  });

  it('maps per-entry partial failures: InternalFailure and ThrottlingException retryable, others permanent', async () => {
    const { client } = fakeClient(() => [
      { EventId: 'ok' },
      { ErrorCode: 'InternalFailure', ErrorMessage: 'internal' },
      { ErrorCode: 'ThrottlingException', ErrorMessage: 'slow down' },
      { ErrorCode: 'AccessDeniedException', ErrorMessage: 'no' },
      { ErrorCode: 'MalformedDetail', ErrorMessage: 'bad json' },
    ]);
    const result = await createEventBridgeBus({ client, eventBusName: 'b' }).publish(events(5));
    expect(result.published).toEqual(['evt-0']);
    expect(result.failed.map((f) => [f.id, f.code, f.retryable])).toEqual([
      ['evt-1', 'InternalFailure', true],
      ['evt-2', 'ThrottlingException', true],
      ['evt-3', 'AccessDeniedException', false],
      ['evt-4', 'MalformedDetail', false],
    ]);
  });

  it('fails a whole call retryably on throttling or 5xx, permanently on other 4xx', async () => {
    const throwing = (error: object) =>
      createEventBridgeBus({
        client: {
          send: async () => {
            throw Object.assign(new Error('boom'), error);
          },
        },
        eventBusName: 'b',
      }).publish(events(2));
    const throttled = await throwing({ name: 'ThrottlingException', $metadata: { httpStatusCode: 400 } });
    expect(throttled.failed.map((f) => f.retryable)).toEqual([true, true]);
    // The SDK client retried the call already: the publisher leaves these to the sweeper.
    expect(throttled.failed.map((f) => f.clientRetried)).toEqual([true, true]);
    const unavailable = await throwing({ name: 'ServiceUnavailable', $metadata: { httpStatusCode: 503 } });
    expect(unavailable.failed.every((f) => f.retryable)).toBe(true);
    const network = await throwing({ name: 'TimeoutError' });
    expect(network.failed.every((f) => f.retryable)).toBe(true);
    const missingBus = await throwing({
      name: 'ResourceNotFoundException',
      $metadata: { httpStatusCode: 400 },
    });
    expect(missingBus.failed.map((f) => [f.retryable, f.code])).toEqual([
      [false, 'ResourceNotFoundException'],
      [false, 'ResourceNotFoundException'],
    ]);
  });

  it('accepts a real EventBridgeClient as its client', () => {
    const bus = createEventBridgeBus({
      client: new EventBridgeClient({ region: 'eu-west-1' }),
      eventBusName: 'b',
    });
    expect(typeof bus.publish).toBe('function');
  });
});
