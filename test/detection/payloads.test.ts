/**
 * Complete payloads: every field the API gives about a change reaches the event, named as in the
 * published schema. The records are API-shaped JSON parsed by the client's wire schemas, so a
 * field dropped anywhere between the wire and the event fails here. Each event is pinned whole.
 */
import { describe, expect, it } from 'vitest';
import { wCollision, wEvent } from '../../functions/core/api/wire/v2';
import { diff } from '../../functions/core/detection/diff';
import { at, baselined, context, expectValidEvents, obs } from './fixtures';

const geo = (lon: number, lat: number, minute: number) => ({
  type: 'Feature',
  geometry: { type: 'Point', coordinates: [lon, lat, 35] },
  properties: { id: 'p1', createdAt: at(minute), updatedAt: at(minute), heading: 90 },
});

const envelopeOf = (minute: number) => ({
  detectedAt: at(minute),
  vehicle: { id: 'veh-1', vin: 'VF3ABCDEFGH123456', brand: 'P' },
  enrollment: { id: 'enr-1', kind: 'oauth-user' },
});

describe('complete payloads from API-shaped records', () => {
  it('vehicle.collision.detected carries the position the collision record embeds', () => {
    const c = wCollision.parse({
      id: 'c1',
      rollOver: false,
      front: { level: 'HIGH' },
      rear: { level: 'NONE' },
      lateral: { level: 'low' },
      pedestrian: false,
      createdAt: at(2),
      updatedAt: at(2),
      _links: { self: { href: '/collisions/c1' }, trip: { href: '/trips/t9' } },
      _embedded: { position: geo(2.35, 48.85, 2) },
    });
    const r = diff(baselined(), [obs('v2.collisions', [c], 3)], context(3));
    expect(r.events.map(({ id: _id, sequence: _s, schemaVersion: _v, ...e }) => e)).toEqual([
      {
        type: 'vehicle.collision.detected',
        occurredAt: at(2),
        ...envelopeOf(3),
        source: { api: 'v2', operation: 'v2.vehicles.collisions', recordId: 'c1' },
        data: {
          collisionId: 'c1',
          front: 'high',
          rear: 'none',
          lateral: 'low',
          maxLevel: 'high',
          rollOver: false,
          pedestrian: false,
          tripId: 't9',
          position: { lon: 2.35, lat: 48.85, alt: 35, heading: 90, collectedAt: at(2) },
          collidedAt: at(2),
        },
      },
    ]);
    expectValidEvents(r.events);
  });

  it.each([
    ['REFUEL', 'refuel', 'vehicle.refuel.detected', 41.5],
    ['FUEL_STOLEN', 'fuelStolen', 'vehicle.fuel_theft.detected', -12.3],
  ] as const)(
    '%s: the fuel change in liters (signed by kind) and the position',
    (type, key, eventType, change) => {
      const ev = wEvent.parse({
        id: 'e1',
        type,
        eventId: 'f1',
        createdAt: at(2),
        updatedAt: at(2),
        _links: { self: { href: '/vehicles/v1/events/e1' } },
        _embedded: {
          [key]: {
            id: 'f1',
            liters: Math.abs(change),
            createdAt: at(2),
            updatedAt: at(2),
            _embedded: { position: geo(4.83, 45.76, 2) },
          },
        },
      });
      const r = diff(baselined(), [obs('v2.events', [ev], 3)], context(3));
      expect(r.events.map(({ id: _id, sequence: _s, schemaVersion: _v, ...e }) => e)).toEqual([
        {
          type: eventType,
          occurredAt: at(2),
          ...envelopeOf(3),
          source: { api: 'v2', operation: 'v2.vehicles.events', recordId: 'f1' },
          data: {
            recordId: 'f1',
            at: at(2),
            fuelChangeL: change,
            position: { lon: 4.83, lat: 45.76, alt: 35, heading: 90, collectedAt: at(2) },
          },
        },
      ]);
      expectValidEvents(r.events);
    },
  );

  it('a fuel record without volume or position gives neither field (nothing invented)', () => {
    const ev = wEvent.parse({
      id: 'e2',
      type: 'REFUEL',
      eventId: 'f2',
      createdAt: at(2),
      _embedded: { refuel: { id: 'f2', _embedded: { position: { geometry: { coordinates: ['x'] } } } } },
    });
    const r = diff(baselined(), [obs('v2.events', [ev], 3)], context(3));
    expect(r.events.map((e) => e.data)).toEqual([{ recordId: 'f2', at: at(2) }]);
    expectValidEvents(r.events);
  });

  it('every vehicle event names the car: id, VIN, brand, model and sub-model when known', () => {
    const ctx = {
      ...context(3),
      vehicle: { id: 'veh-1', vin: 'VF3ABCDEFGH123456', brand: 'P', model: '308', subModel: 'GT' },
    };
    const c = wCollision.parse({ id: 'c1', createdAt: at(2) });
    const r = diff(baselined(), [obs('v2.collisions', [c], 3)], ctx);
    expect(r.events[0]?.vehicle).toEqual({
      id: 'veh-1',
      vin: 'VF3ABCDEFGH123456',
      brand: 'P',
      model: '308',
      subModel: 'GT',
    });
    expect(r.events[0]).not.toHaveProperty('enrollments');
    expectValidEvents(r.events);
  });

  it('a vehicle enrolled twice: each event carries both enrollment ids', () => {
    const enrollments = [
      { id: 'enr-1', kind: 'oauth-user' },
      { id: 'enr_fleet_1', kind: 'fleet-contract' },
    ] as const;
    const c = wCollision.parse({ id: 'c1', createdAt: at(2) });
    const r = diff(baselined(), [obs('v2.collisions', [c], 3)], { ...context(3), enrollments });
    expect(r.events[0]?.enrollment).toEqual({ id: 'enr-1', kind: 'oauth-user' });
    expect(r.events[0]?.enrollments).toEqual(enrollments);
    expectValidEvents(r.events);
  });

  it('the identity scopes the event ids: another enrollment of the same VIN gives the same ids', () => {
    const c = wCollision.parse({ id: 'c1', createdAt: at(2) });
    const identity = 'vin:VF3ABCDEFGH123456';
    const start = { ...baselined(), vehicleId: identity };
    const a = diff(start, [obs('v2.collisions', [c], 3)], { ...context(3), identity });
    const b = diff(start, [obs('v2.collisions', [c], 3)], {
      ...context(3),
      identity,
      vehicle: { id: 'enr-2:api-7', vin: 'VF3ABCDEFGH123456' },
      enrollment: { id: 'enr-2', kind: 'oauth-user' },
    });
    expect(b.events.map((e) => e.id)).toEqual(a.events.map((e) => e.id));
    // Without the identity the vehicle id scopes them (the former keying).
    const legacy = diff(baselined(), [obs('v2.collisions', [c], 3)], context(3));
    expect(legacy.events.map((e) => e.id)).not.toEqual(a.events.map((e) => e.id));
  });
});
