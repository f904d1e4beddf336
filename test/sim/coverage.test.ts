import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s256 } from '../../sim/auth/tokens';
import { matchOperation } from '../../sim/http/operations';
import { SPEC_OPERATIONS, type SpecOperation } from '../../sim/spec/operations';
import { BRANDS } from '../../sim/world/catalog';
import type { SimTrip, SimUser, SimVehicle } from '../../sim/world/types';
import { basicAuth, startTestSim, type TestSim } from './support';

/** Field names of the v2 resources that each response must carry. */
const V2_FIELDS: Record<string, readonly string[]> = {
  User: ['id', 'email', 'firstName', 'lastName', 'createdAt', 'updatedAt', '_links'],
  Vehicle: [
    'id',
    'vin',
    'brand',
    'model',
    'subModel',
    'engine',
    'gearbox',
    'energy',
    'createdAt',
    'updatedAt',
    '_links',
  ],
  Alert: ['id', 'active', 'message', 'severity', 'createdAt', 'updatedAt', '_embedded'],
  Collision: ['id', 'rollOver', 'front', 'rear', 'lateral', 'pedestrian', 'createdAt', 'updatedAt', '_links'],
  Maintenance: ['vin', 'days', 'mileage', 'createdAt', 'updatedAt', '_links'],
  Event: ['id', 'type', 'eventId', 'createdAt', 'updatedAt', '_links', '_embedded'],
  Telemetry: ['id', 'createdAt', 'updatedAt', '_links', 'vehicle'],
  Trip: [
    'id',
    'reference',
    'startedAt',
    'stoppedAt',
    'duration',
    'distance',
    'fuelConsumption',
    'refueling',
    'avgConsumption',
    'avgSpeed',
    'co2EmissionEstimated',
    'createdAt',
    'updatedAt',
    '_links',
    '_embedded',
  ],
  EcoDriving: ['id', '_links', 'global', 'detailed'],
  Position: ['type', 'geometry', 'properties'],
  Waypoint: ['type', 'geometry', 'properties'],
  Service: ['code', 'shortLabel', 'eligible'],
  Eligibilities: ['vin', 'eligible', 'services'],
  Map: ['vin', 'installedVersion', 'availableVersion', 'updateAvailable', 'releaseDate'],
};

/** Field names of the v1 records, by the `response` text of operations.json. */
const V1_FIELDS: Record<string, readonly string[]> = {
  Crash: ['vin', 'contract', 'totMileage', 'flipVeh', 'highFrontCrashInfo', 'pedestCrashInfo1_41'],
  EcoEvaluation: ['vin', 'contract', 'globalEvaluation', 'detailedEvaluation'],
  Environment: ['vin', 'contract', 'exteriorTemp', 'infoDayAndNight'],
  MaintenanceV1: ['vin', 'contract', 'fuel', 'maintenance'],
  AlertList: ['listAlert'],
  PositionV1: ['latitude', 'longitude', 'altitude', 'nbsat', 'source'],
  ReferentialMaintenance: ['indicatorCode', 'indicatorLabel', 'rgrpCode', 'rgrpLabel'],
  ReferentialAlert: ['indicatorCode', 'indicatorLabel', 'rgrpCode', 'rgrpLabel'],
  ReferentialEcodriving: [
    'edMarkType',
    'edMarkLabel',
    'edCategoryCode',
    'edCategoryLabel',
    'edEvaluation',
    'edAdvice',
    'edLevel',
  ],
  LightStatus: ['vin', 'contract', 'fogFront', 'fogRear', 'turnRight', 'turnLeft', 'brakeLight'],
  DrivingAssistance: ['vin', 'contract', 'autoECall', 'afil', 'laneKeepAssistLeft'],
  SafetyAssistance: ['vin', 'contract', 'infoBeltSecurity', 'AdEmergencyBrakeSystem', 'abs', 'esp'],
  TripV1: ['vin', 'contract', 'tripId', 'tripDuration', 'tripMileage', 'dateTripBegin', 'geoLocalisation'],
  ReferenceFuelPrice: ['vin', 'contract', 'fuelPrice'],
  VehicleInformation: ['vin', 'brand', 'color', 'lcdv', 'cod_log', 'flagSual'],
};

function expectFields(obj: unknown, fields: readonly string[], what: string): void {
  expect(obj, `${what} is an object`).toBeTypeOf('object');
  for (const f of fields) expect(obj as object, `${what} has '${f}'`).toHaveProperty([f]);
}

function firstItem(body: unknown, plural: string): unknown {
  const items = (body as { _embedded: Record<string, unknown[]> })._embedded[plural];
  expect(Array.isArray(items), `_embedded.${plural} is an array`).toBe(true);
  expect(items?.length, `_embedded.${plural} is not empty`).toBeGreaterThan(0);
  return items?.[0];
}

function expectHalList(body: unknown, plural: string, itemFields: readonly string[]): void {
  expectFields(body, ['_links', 'total', '_embedded'], 'list');
  expect((body as { _links: { self: { href: string } } })._links.self.href).toMatch(/^http/);
  expectFields(firstItem(body, plural), itemFields, plural);
}

/** v1 response description → the record name and whether it is an array. */
function v1Record(response: string): { name: string; array: boolean; wrapper?: string } | undefined {
  const arr = /^array<(\w+)/.exec(response);
  if (arr?.[1]) return { name: arr[1], array: true };
  const wrapped = /trips: array<(\w+)>/.exec(response);
  if (wrapped?.[1]) return { name: wrapped[1], array: true, wrapper: 'trips' };
  const single = /^(\w+)/.exec(response);
  if (single?.[1] && V1_FIELDS[single[1]]) return { name: single[1], array: false };
  return undefined;
}

const yyyymmdd = (ms: number): string => new Date(ms).toISOString().slice(0, 10).replace(/-/g, '');

describe('every operation of operations.json answers with the spec shapes', () => {
  let t: TestSim;
  let user: SimUser;
  let vehicle: SimVehicle;
  let trip: SimTrip;
  let token: string;

  beforeAll(async () => {
    t = await startTestSim({ vehicles: 6, seed: 7 });
    const world = t.sim.world;
    vehicle = world.vehicles().find((v) => v.geolocationAllowed) as SimVehicle;
    user = world.user(vehicle.userId) as SimUser;
    // Give the vehicle a fresh trip with an alert, a collision and a refuel, so every list has items.
    const created = await t.control('POST', `/vehicles/${vehicle.id}/trips`, {
      durationS: 1200,
      alerts: ['engineFault'],
      collision: true,
      refueling: true,
    });
    expect(created.status).toBe(201);
    trip = world.trip(created.body.trip.id) as SimTrip;
    // A reference (favourite) trip, for the v1 reference-trip read.
    world.setReferenceTrip(trip.id, true);
    token = await t.tokenFor(user.id);
  });
  afterAll(() => t.close());

  it('holds the 63 operations of the shared spec', () => {
    expect(SPEC_OPERATIONS).toHaveLength(63);
    const shared = '/work/shared/spec/operations.json';
    if (existsSync(shared)) {
      // The in-repo copy must not drift from the spec it was made from.
      const spec = JSON.parse(readFileSync(shared, 'utf8')) as { operations: SpecOperation[] };
      expect(SPEC_OPERATIONS).toEqual(spec.operations);
    }
  });

  it.each(SPEC_OPERATIONS.map((op) => [op.id, op] as const))('%s', async (_id, op) => {
    const now = t.sim.world.now();
    const brand = BRANDS[vehicle.brand];
    const redirect = 'http://127.0.0.1:9999/cb';
    const pathParams: Record<string, string> = {
      id: op.path.includes('/trips/{id}') ? trip.id : vehicle.id,
      vin: vehicle.vin,
      tripid: String(trip.v1Id),
      contract: vehicle.contract,
      brand: brand.authSegment,
    };
    const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) =>
      encodeURIComponent(pathParams[name] ?? ''),
    );
    expect(matchOperation(op.method, path)?.op.id, 'the matcher finds the operation').toBe(op.id);
    const minute = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace(/[-T:]/g, '');
    const values: Record<string, string> = {
      client_id: t.sim.clientId,
      contract: vehicle.contract,
      listsecond: '1,30,60',
      near: '1',
      locale: op.area === 'D' ? 'fr_FR' : 'fr',
      brand: vehicle.brand,
      from: op.id === 'v1.crash.search' ? minute(now - 15 * 86_400_000) : yyyymmdd(now - 15 * 86_400_000),
      to: op.id === 'v1.crash.search' ? minute(now) : yyyymmdd(now),
      fromday: yyyymmdd(now - 15 * 86_400_000),
      today: yyyymmdd(now),
      frommonth: yyyymmdd(now - 40 * 86_400_000).slice(0, 6),
      tomonth: yyyymmdd(now).slice(0, 6),
      day: yyyymmdd(trip.startedAt),
      active: '1',
      tripid: String(trip.v1Id),
      unit: '0',
      limit: '10',
      price: '1.85',
      response_type: 'code',
      scope: 'public',
      redirect_uri: redirect,
    };
    const url = new URL(`${t.sim.url}${path}`);
    for (const q of op.query) {
      if (!q.required && !(op.area === 'A' && q.name === 'locale')) continue;
      const v = values[q.name];
      expect(v, `a test value for '${q.name}'`).toBeDefined();
      url.searchParams.set(q.name, v as string);
    }
    if (op.area === 'A' || op.area === 'B') url.searchParams.set('client_id', t.sim.clientId);
    const headers: Record<string, string> = {};
    if (op.area === 'A') headers.authorization = `Bearer ${token}`;
    if (op.area === 'C') headers.authorization = basicAuth(t.sim.clientId, t.sim.clientSecret);
    if (op.accept) headers.accept = op.accept;
    let body: string | undefined;
    if (op.id === 'auth.token') {
      const verifier = 'v'.repeat(50);
      const approve = await fetch(
        `${t.sim.url}/accounts/signin/v1/${brand.authSegment}/oauth2/authorize?response_type=code&scope=public&client_id=${t.sim.clientId}&redirect_uri=${encodeURIComponent(redirect)}&state=s1&code_challenge=${s256(verifier)}&code_challenge_method=S256`,
        { method: 'POST', body: new URLSearchParams({ user: user.id }), redirect: 'manual' },
      );
      expect(approve.status).toBe(302);
      const code = new URL(approve.headers.get('location') as string).searchParams.get('code') as string;
      body = new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirect,
        code_verifier: verifier,
      }).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers.authorization = basicAuth(t.sim.clientId, t.sim.clientSecret);
    } else if (op.id === 'map.bulk') {
      body = JSON.stringify([vehicle.vin]);
      headers['content-type'] = 'application/json';
    } else if (op.body?.includes('listvin')) {
      body = JSON.stringify({ listvin: [vehicle.vin], listcontract: [vehicle.contract] });
      headers['content-type'] = 'application/json';
    } else if (op.id === 'v1.vehicle.picture.create') {
      body = JSON.stringify({
        width: 640,
        format: 'png',
        background: 'white',
        trim: 'standard',
        view: '001',
        ratio: '16:9',
      });
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(url, {
      method: op.method,
      headers,
      ...(body !== undefined ? { body } : {}),
      redirect: 'manual',
    });
    const text = await res.text();
    expect(res.status, `${op.method} ${url.pathname}: ${text.slice(0, 300)}`).toBe(200);
    const type = res.headers.get('content-type') ?? '';

    if (op.id === 'auth.authorize') {
      expect(type).toMatch(/^text\/html/);
      expect(text).toContain(`value="${user.id}"`);
      return;
    }
    if (op.area === 'D' && text === '') return; // "200, body not shown" operations may answer no body.
    const json = JSON.parse(text) as unknown;
    if (op.id === 'auth.token') {
      expect(type).toMatch(/^application\/json/);
      expect(Object.keys(json as object).sort()).toEqual([
        'access_token',
        'expires_in',
        'refresh_token',
        'scope',
        'token_type',
      ]);
      expect(json).toMatchObject({ token_type: 'bearer', scope: 'public', expires_in: 3600 });
      return;
    }
    if (op.area === 'A')
      expect(type).toMatch(
        op.accept === 'application/geo+json' ? /^application\/geo\+json/ : /^application\/hal\+json/,
      );
    else expect(type).toMatch(/^application\/json/);
    // Every API response carries the rate limit headers.
    expect(res.headers.get('x-ratelimit-limit')).toBe('120');
    expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);

    const F = V2_FIELDS;
    switch (op.id) {
      case 'v2.user':
        expectFields(json, F.User as string[], 'user');
        expectFields(
          (json as { _links: object })._links,
          ['self', 'trips', 'lastTrip', 'lastEcodriving'],
          'user _links',
        );
        expectFields(firstItem(json, 'vehicles'), F.Vehicle as string[], 'embedded vehicle');
        return;
      case 'v2.vehicles.list':
        return expectHalList(json, 'vehicles', F.Vehicle as string[]);
      case 'v2.vehicles.get':
        expectFields(json, F.Vehicle as string[], 'vehicle');
        expectFields(
          (json as { _links: object })._links,
          [
            'self',
            'lastTrip',
            'lastPosition',
            'trips',
            'collisions',
            'telemetry',
            'maintenance',
            'alerts',
            'events',
          ],
          'vehicle _links',
        );
        return;
      case 'v2.vehicles.lastPosition': {
        expectFields(json, F.Position as string[], 'position');
        const p = json as {
          type: string;
          geometry: { type: string; coordinates: number[] };
          properties: object;
        };
        expect(p.type).toBe('Feature');
        expect(p.geometry.type).toBe('Point');
        expect(p.geometry.coordinates).toHaveLength(3);
        expectFields(p.properties, ['id', 'createdAt', 'updatedAt', 'heading'], 'position properties');
        return;
      }
      case 'v2.vehicles.alerts':
      case 'v2.trips.alerts':
        return expectHalList(json, 'alerts', F.Alert as string[]);
      case 'v2.vehicles.collisions':
      case 'v2.trips.collisions':
        return expectHalList(json, 'collisions', F.Collision as string[]);
      case 'v2.vehicles.maintenance':
        return expectFields(json, F.Maintenance as string[], 'maintenance');
      case 'v2.vehicles.events':
        return expectHalList(json, 'events', F.Event as string[]);
      case 'v2.vehicles.telemetry':
      case 'v2.trips.telemetry':
        return expectHalList(json, 'telemetries', F.Telemetry as string[]);
      case 'v2.vehicles.trips':
      case 'v2.trips.list':
        return expectHalList(json, 'trips', F.Trip as string[]);
      case 'v2.trips.get':
        return expectFields(json, F.Trip as string[], 'trip');
      case 'v2.trips.ecodriving': {
        expectFields(json, F.EcoDriving as string[], 'ecodriving');
        const e = json as { global: object; detailed: object };
        expect(Object.keys(e.global).sort()).toEqual(['road', 'style', 'trend']);
        expect(Object.keys(e.detailed)).toHaveLength(7);
        return;
      }
      case 'v2.trips.wayPoints':
        return expectHalList(json, 'waypoints', F.Waypoint as string[]);
      case 'v2.services.vehicle':
        expect(Array.isArray(json)).toBe(true);
        return expectFields((json as unknown[])[0], F.Service as string[], 'service');
      case 'v2.vehicles.eligibilities':
        return expectFields(json, F.Eligibilities as string[], 'eligibilities');
      case 'map.vin':
        return expectFields(json, F.Map as string[], 'map');
      case 'map.bulk':
        expect(Array.isArray(json)).toBe(true);
        return expectFields((json as unknown[])[0], F.Map as string[], 'map item');
    }
    // Area D: the version 1 records.
    const rec = v1Record(op.response);
    if (!rec) return; // "200, body not shown"
    const fields = V1_FIELDS[rec.name] as readonly string[];
    let item: unknown = json;
    if (rec.wrapper) item = (json as Record<string, unknown[]>)[rec.wrapper];
    if (rec.array) {
      expect(Array.isArray(item), `${op.id} answers an array`).toBe(true);
      expect((item as unknown[]).length, `${op.id} answers at least one record`).toBeGreaterThan(0);
      item = (item as unknown[])[0];
    }
    expectFields(item, fields, rec.name);
  });
});
