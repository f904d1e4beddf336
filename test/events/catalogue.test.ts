import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import {
  buildEvent,
  EVENT_TYPES,
  envelopeSchemaFor,
  eventDefinition,
  isEventType,
} from '../../functions/core/events/catalogue';
import { defineEvent } from '../../functions/core/events/common';
import { eventId } from '../../functions/core/events/ids';
import { describeValidationError, validateEvent } from '../../functions/core/events/validate';

const envelopeParts = {
  id: 'evt_test',
  occurredAt: '2026-11-22T10:00:00.000Z',
  detectedAt: '2026-11-22T10:00:05.000Z',
  sequence: 0,
  source: { api: 'carhook' as const, operation: 'POST /subscriptions/{id}/test' },
};

describe('defineEvent', () => {
  it('builds the data schema at the first read of `data`, once, not when the type is defined', () => {
    const build = vi.fn(() => z.object({ n: z.number() }));
    const def = defineEvent({
      type: 'x.y',
      version: 2,
      producer: 'test',
      audience: 'opt-in',
      description: 'a type',
      data: build,
    });
    expect(build).not.toHaveBeenCalled();
    expect(def).toMatchObject({ type: 'x.y', version: 2, producer: 'test', audience: 'opt-in' });
    const first = def.data;
    expect(def.data).toBe(first);
    expect(build).toHaveBeenCalledTimes(1);
    expect(first.safeParse({ n: 1 }).success).toBe(true);
  });
});

describe('event catalogue', () => {
  it('defines every type of the design once, each with a version', () => {
    expect([...EVENT_TYPES].sort()).toEqual(
      [
        'vehicle.alert.raised',
        'vehicle.alert.fixed',
        'vehicle.collision.detected',
        'vehicle.maintenance.due',
        'vehicle.maintenance.overdue',
        'vehicle.maintenance.reset',
        'vehicle.trip.completed',
        'vehicle.refuel.detected',
        'vehicle.fuel_theft.detected',
        'vehicle.map_update.available',
        'vehicle.services.changed',
        'vehicle.reporting.stopped',
        'vehicle.reporting.resumed',
        'enrollment.vehicle.added',
        'enrollment.vehicle.removed',
        'enrollment.reauthorization_required',
        'webhook.endpoint.disabled',
        'webhook.delivery.exhausted',
        'webhook.test',
        'carhook.quota.changed',
        'carhook.freshness.at_risk',
        'carhook.freshness.restored',
      ].sort(),
    );
    for (const type of EVENT_TYPES) {
      expect(eventDefinition(type).version).toBeGreaterThanOrEqual(1);
      expect(eventDefinition(type).description.length).toBeGreaterThan(10);
    }
    expect(eventDefinition('vehicle.nope')).toBeUndefined();
    expect(isEventType('webhook.test')).toBe(true);
    expect(isEventType('webhook.nope')).toBe(false);
  });

  it('marks the operational webhook events opt-in (sent only to subscriptions that name them)', () => {
    expect(eventDefinition('webhook.delivery.exhausted').audience).toBe('opt-in');
    expect(eventDefinition('webhook.endpoint.disabled').audience).toBe('opt-in');
    expect(eventDefinition('webhook.test').audience).toBe('all');
  });

  it('buildEvent fills type and schemaVersion from the catalogue, and the event validates', () => {
    const e = buildEvent('webhook.test', {
      ...envelopeParts,
      data: { subscriptionId: 'sub_1', message: 'hello' },
    });
    expect(e).toMatchObject({ type: 'webhook.test', schemaVersion: 1, data: { subscriptionId: 'sub_1' } });
    expect(validateEvent(e)).toEqual({ ok: true });
    expect(envelopeSchemaFor('webhook.test').safeParse(e).success).toBe(true);
  });
});

describe('validateEvent (the zod schema of the catalogue, as published)', () => {
  const good = buildEvent('webhook.delivery.exhausted', {
    ...envelopeParts,
    data: {
      subscriptionId: 's',
      eventId: 'evt_x',
      eventType: 'vehicle.alert.raised',
      attempts: 8,
      lastStatus: 500,
      lastAttemptAt: '2026-11-22T10:00:00.000Z',
    },
  });

  it.each([
    ['a missing data field', { ...good, data: { ...good.data, attempts: undefined } }, '/data/attempts'],
    ['a retyped data field', { ...good, data: { ...good.data, attempts: 'eight' } }, '/data/attempts'],
    ['an unknown data field', { ...good, data: { ...good.data, color: 'red' } }, '/data/color'],
    ['a bad timestamp', { ...good, occurredAt: 'yesterday' }, '/occurredAt'],
    ['a wrong schemaVersion', { ...good, schemaVersion: 2 }, '/schemaVersion'],
  ])('refuses %s, naming the path', (_name, event, path) => {
    const r = validateEvent(JSON.parse(JSON.stringify(event)));
    expect(r.ok).toBe(false);
    if (!r.ok && r.error.kind === 'InvalidEvent') {
      expect(r.error.issues.map((i) => i.path)).toContain(path);
      expect(describeValidationError(r.error)).toContain(path);
    } else throw new TypeError('expected an InvalidEvent error');
  });

  it.each([null, 42, {}, { type: 'vehicle.teleported', id: 'x' }])(
    'refuses %j as an unknown event type',
    (input) => {
      const r = validateEvent(input);
      expect(r).toMatchObject({ ok: false, error: { kind: 'UnknownEventType' } });
    },
  );
});

describe('eventId', () => {
  const parts = { scope: 'veh-1', type: 'vehicle.alert.raised', key: 'a1@2026', transition: 'raised' };

  it('is deterministic and shaped evt_ + 26 base32 characters', () => {
    expect(eventId(parts)).toBe(eventId({ ...parts }));
    expect(eventId(parts)).toMatch(/^evt_[a-z2-7]{26}$/);
  });

  it.each(['scope', 'type', 'key', 'transition'] as const)('changes when %s changes', (field) => {
    expect(eventId({ ...parts, [field]: `${parts[field]}x` })).not.toBe(eventId(parts));
  });

  it('keeps parts apart (no ambiguity from concatenation)', () => {
    expect(eventId({ ...parts, scope: 'a', key: 'b|c' })).not.toBe(
      eventId({ ...parts, scope: 'a|b', key: 'c' }),
    );
  });
});
