import { describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import {
  matches,
  parseBody,
  type SubscriptionFilter,
  subscriptionSchemas,
} from '../../functions/core/subscriptions/schemas';

const knownTypes = [
  'vehicle.alert.raised',
  'vehicle.alert.fixed',
  'vehicle.position.changed',
  'enrollment.revoked',
  'webhook.test',
  'webhook.endpoint.disabled',
] as const;
const schemas = subscriptionSchemas({ knownTypes });

function issues(schema: keyof typeof schemas, body: unknown) {
  const r = parseBody(schemas[schema], body);
  if (r.ok) throw new Error(`expected ${JSON.stringify(body)} to be refused`);
  return r.error.issues;
}

describe('create subscription body', () => {
  it('accepts a URL with exact types, prefixes and filters, de-duplicating entries', () => {
    const r = parseBody(schemas.create, {
      url: 'https://hooks.example.com/carhook',
      eventTypes: ['vehicle.alert.*', 'enrollment.revoked', 'enrollment.revoked', '*'],
      vehicleIds: ['veh_1'],
      description: 'fleet alerts',
    });
    expect(r.ok && r.value).toEqual({
      url: 'https://hooks.example.com/carhook',
      eventTypes: ['vehicle.alert.*', 'enrollment.revoked', '*'],
      vehicleIds: ['veh_1'],
      description: 'fleet alerts',
    });
  });

  it('refuses an unknown type naming the field index and the bad value', () => {
    expect(
      issues('create', {
        url: 'https://a.example.com/',
        eventTypes: ['vehicle.alert.fixed', 'vehicle.nope'],
      }),
    ).toEqual([{ field: 'eventTypes[1]', reason: 'unknown event type "vehicle.nope"' }]);
  });

  it.each([
    ['vehicle.nothing.*', 'matches no known event type'],
    ['vehicle*', 'a wildcard is only allowed as a whole last segment'],
    ['vehicle.*.fixed', 'a wildcard is only allowed as a whole last segment'],
    ['webhook.nope.*', 'matches no known event type'],
    ['webhook.nope', 'unknown event type'],
  ])('refuses the filter %s', (entry, reason) => {
    const found = issues('create', { url: 'https://a.example.com/', eventTypes: [entry] });
    expect(found[0]?.field).toBe('eventTypes[0]');
    expect(found[0]?.reason).toContain(reason);
  });

  it('names every bad field and why', () => {
    const found = issues('create', {
      url: 'http://10.0.0.1/x',
      eventTypes: [],
      vehicleIds: [''],
      description: 'x'.repeat(501),
      secret: 'mine',
    });
    const byField = Object.fromEntries(found.map((i) => [i.field, i.reason]));
    expect(byField.url).toMatch(/10\.0\.0\.1 is private/);
    expect(byField.eventTypes).toMatch(/at least one event type/);
    expect(byField['vehicleIds[0]']).toBeDefined();
    expect(byField.description).toMatch(/at most 500/);
    expect(byField.secret).toBe('unknown field(s): secret');
  });

  it('requires url, and refuses a non-object body without throwing', () => {
    expect(issues('create', {})).toEqual([{ field: 'url', reason: 'is required' }]);
    expect(issues('create', 'hello')[0]?.field).toBe('body');
    expect(issues('create', null)[0]?.field).toBe('body');
  });

  it('applies the URL policy passed in (local mode accepts http on loopback)', () => {
    const local = subscriptionSchemas({ knownTypes, urlPolicy: { allowInsecureLoopback: true } });
    const r = parseBody(local.create, { url: 'http://localhost:3000/hooks' });
    expect(r.ok).toBe(true);
    expect(issues('create', { url: 'http://localhost:3000/hooks' })[0]?.reason).toMatch(/must use https/);
  });
});

describe('patch and replay bodies', () => {
  it('patch accepts partial changes and null to clear a filter, and refuses an empty patch', () => {
    const r = parseBody(schemas.patch, { eventTypes: null, description: 'now everything' });
    expect(r.ok && r.value).toEqual({ eventTypes: null, description: 'now everything' });
    expect(issues('patch', {})[0]?.reason).toMatch(/at least one of/);
    expect(issues('patch', { eventTypes: ['nope'] })[0]).toEqual({
      field: 'eventTypes[0]',
      reason: 'unknown event type "nope"',
    });
  });

  it('replay takes ISO dates with since ≤ until, and needs since unless it names event ids', () => {
    expect(
      parseBody(schemas.replay, { since: '2026-11-20T00:00:00Z', until: '2026-11-21T00:00:00+01:00' }).ok,
    ).toBe(true);
    expect(
      parseBody(schemas.replay, { since: '2026-11-20T00:00:00Z', until: '2026-11-20T00:00:00Z' }).ok,
    ).toBe(true);
    expect(issues('replay', { since: '2026-11-21T00:00:00Z', until: '2026-11-20T00:00:00Z' })).toEqual([
      { field: 'until', reason: 'must not be before since' },
    ]);
    expect(issues('replay', { since: 'yesterday' })[0]?.field).toBe('since');
    expect(issues('replay', {})[0]).toEqual({
      field: 'since',
      reason: 'is required, unless eventIds names the events',
    });
    expect(parseBody(schemas.replay, { eventIds: ['evt_a1'] }).ok).toBe(true);
    expect(issues('replay', { since: '2026-11-20T00:00:00Z', eventTypes: ['x.*'] })[0]?.field).toBe(
      'eventTypes[0]',
    );
  });
});

describe('matches (fan-out)', () => {
  const event: Pick<EventEnvelope, 'type' | 'vehicle' | 'enrollment'> = {
    type: 'vehicle.alert.raised',
    vehicle: { id: 'veh_1' },
    enrollment: { id: 'enr_1', kind: 'fleet-contract' },
  };
  const active: SubscriptionFilter = { status: 'active' };

  it('matches every event when no filter is set, but only while active', () => {
    expect(matches(active, event)).toBe(true);
    expect(matches({ status: 'disabled' }, event)).toBe(false);
  });

  it('matches exact types, dotted prefixes and *', () => {
    expect(matches({ ...active, eventTypes: ['vehicle.alert.raised'] }, event)).toBe(true);
    expect(matches({ ...active, eventTypes: ['vehicle.alert.*'] }, event)).toBe(true);
    expect(matches({ ...active, eventTypes: ['vehicle.*'] }, event)).toBe(true);
    expect(matches({ ...active, eventTypes: ['*'] }, event)).toBe(true);
    expect(matches({ ...active, eventTypes: ['vehicle.alert.fixed', 'enrollment.*'] }, event)).toBe(false);
    expect(matches({ ...active, eventTypes: ['vehicle.al.*'] }, event)).toBe(false);
  });

  it('filters by vehicle and enrollment, and an event without a vehicle does not match a vehicle filter', () => {
    expect(matches({ ...active, vehicleIds: ['veh_1', 'veh_2'] }, event)).toBe(true);
    expect(matches({ ...active, vehicleIds: ['veh_2'] }, event)).toBe(false);
    expect(matches({ ...active, enrollmentIds: ['enr_1'] }, event)).toBe(true);
    expect(matches({ ...active, enrollmentIds: ['enr_2'] }, event)).toBe(false);
    expect(matches({ ...active, vehicleIds: ['veh_1'] }, { type: 'enrollment.revoked' })).toBe(false);
  });

  it('never selects the operational webhook.* events itself (the fan-out decides: delivery/operational.ts)', () => {
    expect(matches({ ...active, eventTypes: ['*'] }, { type: 'webhook.endpoint.disabled' })).toBe(false);
    expect(matches({ ...active, eventTypes: ['webhook.*'] }, { type: 'webhook.endpoint.disabled' })).toBe(
      false,
    );
  });

  it.each([['webhook.*'], ['webhook.endpoint.disabled']])('accepts the operational filter %s', (entry) => {
    const r = parseBody(schemas.create, { url: 'https://a.example.com/', eventTypes: [entry] });
    expect(r.ok && r.value.eventTypes).toEqual([entry]);
  });
});

describe('url field', () => {
  it('reports an over-long URL once, with its length', () => {
    const found = issues('create', { url: `https://a.example.com/${'x'.repeat(2100)}` });
    expect(found).toHaveLength(1);
    expect(found[0]).toEqual({ field: 'url', reason: 'is 2122 characters; the limit is 2048' });
  });

  it('reports a non-string url as a type error', () => {
    expect(issues('create', { url: 42 })[0]?.field).toBe('url');
  });
});
