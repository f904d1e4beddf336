import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../functions/core/api';
import { SPEC_OPERATIONS } from '../../sim/spec/operations';
import { json, testClient, VIN } from './support';

const target = { vin: VIN, contract: 'C123' };

describe('the operation catalogue', () => {
  it('lists exactly the 63 operations of operations.json', () => {
    const spec = SPEC_OPERATIONS.map((o) => `${o.method} ${o.path} ${o.id} ${o.area}`).sort();
    const ours = OPERATIONS.map((o) => `${o.method} ${o.path} ${o.id} ${o.area}`).sort();
    expect(ours).toEqual(spec);
    expect(ours).toHaveLength(63);
  });
});

describe('v1 (area D)', () => {
  it('formats dates, unit, listsecond and the bulk body', async () => {
    const { client, requests } = testClient(() => json({ trips: [] }));
    const r = await client.v1.tripList({
      targets: [target, { vin: 'VR7ABCDEF12345678', contract: 'C9' }],
      from: new Date('2026-01-05T23:30:00Z'),
      to: new Date('2026-02-01T00:00:00Z'),
      limit: 5,
      unit: 'imperial',
    });
    expect(r).toMatchObject({ ok: true, value: { trips: [] } });
    const req = requests[0];
    expect(req?.method).toBe('POST');
    expect(req?.url.pathname).toBe('/connectedcar/v1/dev/trip/list');
    expect(Object.fromEntries(req?.url.searchParams ?? [])).toEqual({
      client_id: 'client-1',
      from: '20260105',
      to: '20260201',
      limit: '5',
      unit: '1',
    });
    expect(JSON.parse(req?.body ?? '')).toEqual({
      listvin: [VIN, 'VR7ABCDEF12345678'],
      listcontract: ['C123', 'C9'],
    });
    expect(req?.headers.get('authorization')).toBeNull();
  });

  it('sends yyyyMMddHHmm for crash search and yyyyMM for months', async () => {
    const { client, requests } = testClient(() => json([]));
    await client.v1.crashSearch({
      ...target,
      from: new Date('2026-03-04T05:06:00Z'),
      to: new Date('2026-03-04T07:08:00Z'),
    });
    await client.v1.ecoTripMonth({
      ...target,
      locale: 'fr_FR',
      brand: 'P',
      fromMonth: new Date('2026-01-15Z'),
      toMonth: new Date('2026-03-01Z'),
    });
    expect(requests[0]?.url.searchParams.get('from')).toBe('202603040506');
    expect(requests[0]?.url.searchParams.get('to')).toBe('202603040708');
    expect(requests[1]?.url.searchParams.get('frommonth')).toBe('202601');
    expect(requests[1]?.url.searchParams.get('brand')).toBe('P');
  });

  it('normalizes v1 alert lists and their yyyyMMddHHmmss dates', async () => {
    const { client, requests } = testClient(() =>
      json({
        vin: VIN,
        contract: 'C123',
        listAlert: [
          {
            idAlert: '7',
            alert: 'Oil pressure',
            advise: 'Stop',
            category: 'engine',
            alertState: '1',
            dateAlertBegin: '20160803083640',
            dateAlertEnd: '',
            dateUpdate: '20160803083700',
          },
        ],
      }),
    );
    const r = await client.v1.alerts({ ...target, locale: 'en_GB', brand: 'C', active: true });
    expect(requests[0]?.url.searchParams.get('active')).toBe('1');
    expect(r.ok && r.value).toEqual([
      {
        vin: VIN,
        contract: 'C123',
        idAlert: '7',
        alert: 'Oil pressure',
        advise: 'Stop',
        category: 'engine',
        alertState: 1,
        dateAlertBegin: '2016-08-03T08:36:40.000Z',
        dateUpdate: '2016-08-03T08:37:00.000Z',
      },
    ]);
  });

  it('reads the v1 crash sample with its lastUpdate normalized', async () => {
    const { client, requests } = testClient(() =>
      json({
        totMileage: { 41: 0, 60: 12535.3 },
        vin: VIN,
        lastUpdate: '20160803083640',
        contract: '620324101',
      }),
    );
    const r = await client.v1.crashGet({ ...target, seconds: [41, 60] });
    expect(requests[0]?.url.searchParams.get('listsecond')).toBe('41,60');
    expect(r.ok && r.value).toMatchObject({
      vin: VIN,
      contract: '620324101',
      lastUpdate: '2016-08-03T08:36:40.000Z',
    });
  });

  it.each([
    ['a lower-case VIN', () => ({ ...target, vin: 'vf3abcdef12345678' }), 'vin'],
    ['a short VIN', () => ({ ...target, vin: 'VF3' }), 'vin'],
    ['an empty contract', () => ({ ...target, contract: '' }), 'contract'],
  ])('refuses %s before any request', async (_n, make, field) => {
    const { client, requests } = testClient(() => json({}));
    const r = await client.v1.vehicleInformation(make());
    expect(r).toMatchObject({ ok: false, requests: 0, error: { kind: 'InvalidRequest', field } });
    expect(requests).toHaveLength(0);
  });

  it.each([
    ['brand', { brand: 'X' }],
    ['locale', { locale: 'english!' }],
  ])('refuses a bad %s', async (field, bad) => {
    const { client } = testClient(() => json({}));
    const r = await client.v1.maintenance({
      ...target,
      locale: 'en',
      brand: 'C',
      ...(bad as object),
    } as never);
    expect(r).toMatchObject({ ok: false, error: { kind: 'InvalidRequest', field } });
  });

  it('refuses a bad unit, listsecond, date and an empty bulk list', async () => {
    const { client, requests } = testClient(() => json({}));
    const results = await Promise.all([
      client.v1.trip({ ...target, tripId: 3, unit: 'furlongs' as never }),
      client.v1.environment({ ...target, seconds: [0, 61] }),
      client.v1.ecoDayTrips({ ...target, locale: 'en', brand: 'C', day: new Date('nope') }),
      client.v1.maintenanceList({ targets: [], locale: 'en', brand: 'C' }),
      client.v1.crashList({
        targets: [
          { vin: VIN, contract: 'C1' },
          { vin: 'BAD', contract: 'C2' },
        ],
      }),
    ]);
    expect(results.map((r) => !r.ok && r.error.kind === 'InvalidRequest' && r.error.field)).toEqual([
      'unit',
      'listsecond',
      'day',
      'targets',
      'targets[1].vin',
    ]);
    expect(requests).toHaveLength(0);
  });

  it('returns the raw answer of a PUT whose body the spec does not show', async () => {
    const { client, requests } = testClient(() => new Response(null, { status: 200 }));
    const r = await client.v1.setTripFuelPrice({ ...target, tripId: 12, price: 1.85 });
    expect(r).toMatchObject({ ok: true, value: { status: 200 } });
    expect(requests[0]?.method).toBe('PUT');
    expect(Object.fromEntries(requests[0]?.url.searchParams ?? [])).toMatchObject({
      contract: 'C123',
      price: '1.85',
    });
  });
});

describe('map (area C) and services (area B)', () => {
  it('authenticates the map API with HTTP basic and client_id, and sends the caller id', async () => {
    const { client, requests } = testClient(() =>
      json({
        vin: VIN,
        installedVersion: '2025.1',
        availableVersion: '2026.2',
        releasedAt: '2026-10-01T00:00:00Z',
      }),
    );
    const r = await client.map.vin(VIN, { callerId: 'carhook' });
    expect(r.ok && r.value).toEqual({
      vin: VIN,
      installedVersion: '2025.1',
      availableVersion: '2026.2',
      releasedAt: '2026-10-01T00:00:00.000Z',
      updateAvailable: true,
    });
    const req = requests[0];
    expect(req?.headers.get('authorization')).toBe(
      `Basic ${Buffer.from('client-1:super-secret-value').toString('base64')}`,
    );
    expect(req?.headers.get('x-map-caller-id')).toBe('carhook');
    expect(req?.url.searchParams.get('client_id')).toBe('client-1');
  });

  it("uses the map API's own basic credentials when configured, and never shows their password", async () => {
    const { client, requests } = testClient(() => json({ error: 'boom map-password-123' }, 500), {
      mapCredentials: { username: 'map-user', password: 'map-password-123' },
      retry: { maxAttempts: 1 },
    });
    const r = await client.map.vin(VIN);
    expect(requests[0]?.headers.get('authorization')).toBe(
      `Basic ${Buffer.from('map-user:map-password-123').toString('base64')}`,
    );
    expect(r.ok).toBe(false);
    expect(JSON.stringify(r)).not.toContain('map-password-123');
  });

  it('posts the bulk map request as a JSON array of VINs', async () => {
    const { client, requests } = testClient(() => json([{ vin: VIN, availableVersion: '1' }]));
    const r = await client.map.bulk([VIN]);
    expect(r.ok && r.value).toHaveLength(1);
    expect(JSON.parse(requests[0]?.body ?? '')).toEqual([VIN]);
    expect(requests[0]?.headers.get('content-type')).toBe('application/json');
  });

  it('refuses an invalid VIN for the map API before sending', async () => {
    const { client, requests } = testClient(() => json({}));
    expect(await client.map.vin('NOT-A-VIN')).toMatchObject({
      ok: false,
      error: { kind: 'InvalidRequest', field: 'vin' },
    });
    expect(await client.map.bulk([])).toMatchObject({
      ok: false,
      error: { kind: 'InvalidRequest', field: 'vins' },
    });
    expect(requests).toHaveLength(0);
  });

  it('asks services with client_id, Accept application/json and the bearer when available', async () => {
    const { client, requests } = testClient(() =>
      json([{ code: 'NAV', shortLabel: 'Navigation', eligible: 'true' }]),
    );
    const r = await client.services.vehicle(VIN, { services: ['NAV', 'ECALL'] });
    expect(r.ok && r.value).toEqual([{ code: 'NAV', shortLabel: 'Navigation', eligible: true }]);
    expect(requests[0]?.headers.get('accept')).toBe('application/json');
    expect(requests[0]?.headers.get('authorization')).toMatch(/^Bearer /);
    expect(requests[0]?.url.searchParams.get('services')).toBe('NAV,ECALL');
  });

  it('asks eligibilities without a bearer when no token provider is configured', async () => {
    const { client, requests } = testClient(() => json({ anything: true }), { tokenProvider: undefined });
    const r = await client.services.eligibilities(VIN);
    expect(r).toMatchObject({ ok: true, value: { anything: true } });
    expect(requests[0]?.headers.get('authorization')).toBeNull();
  });
});
