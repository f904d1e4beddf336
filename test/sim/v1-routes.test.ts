import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createV1Routes } from '../../sim/v1/routes';
import { CONTRACT_A, CONTRACT_B, createV1Fixture, type V1Fixture, VIN_A, VIN_B } from './v1-fixture';

type Json = Record<string, unknown>;

function setup(): { fx: V1Fixture; call: (method: string, path: string, body?: unknown) => Promise<Reply> } {
  const fx = createV1Fixture();
  const app = createV1Routes({ world: fx.world });
  const call = async (method: string, path: string, body?: unknown): Promise<Reply> => {
    const init: RequestInit = { method };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      init.headers = { 'content-type': 'application/json' };
    }
    const res = await app.request(path, init);
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', body: await res.json() };
  };
  return { fx, call };
}

interface Reply {
  status: number;
  contentType: string;
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON under test
  body: any;
}

const both = { listvin: [VIN_A, VIN_B], listcontract: [CONTRACT_A, CONTRACT_B] };
const A = `contract=${CONTRACT_A}`;
const STAMP = /^\d{14}$/;

const CRASH_SERIES = [
  'totMileage',
  'flipVeh',
  'highRearCrashInfo',
  'avgRearCrashInfo',
  'lowRearCrashInfo',
  'repairRearCrashInfo',
  'highFrontCrashInfo',
  'avgFrontCrashInfoN1',
  'avgFrontCrashInfoN2',
  'lowFrontCrashInfo',
  'repairFrontCrashInfo',
  'highLatCrashInfo',
  'avgLatCrashInfo',
  'lowLatCrashInfo',
  'repairLatCrashInfo',
];
const CRASH_NUMBERS = [
  'pedestCrashInfo1_41',
  'pedestCrashInfo1_60',
  'pedestCrashInfo2_60',
  'pedestCrashInfo3_60',
];
const ECO_GLOBAL = ['drivingMark', 'drivingAttitude', 'roadProfile'];
const ECO_DETAILED = [
  'acceleration',
  'braking',
  'engineSpeed',
  'stopAndStart',
  'speed',
  'slope',
  'coldTrips',
];
const FUEL = [
  'fuelTankAlerte',
  'residualAutonomy',
  'fuelTotalConsumption',
  'fuelLevel',
  'fuelTankCapacity',
  'instFuelConsumption10',
  'instFuelConsumption20',
  'instFuelConsumption30',
  'instFuelConsumption40',
  'instFuelConsumption50',
  'instFuelConsumption60',
];
const MAINT = [
  'totMileage',
  'indDayBeforeMaint',
  'indMileageBeforeMaint',
  'dayBeforeMaint',
  'mileageBeforeMaint',
];
const ALERT_ENTRY = [
  'idAlert',
  'dateUpdate',
  'dateAlertBegin',
  'dateAlertEnd',
  'alertState',
  'alert',
  'advise',
  'category',
];
const POSITION = ['latitude', 'longitude', 'altitude', 'nbsat', 'source'];
const TRIP_NUMBERS = [
  'tripId',
  'tripDuration',
  'avgFuelConsumption',
  'deltaFuelLevel',
  'tripMileage',
  'totMileage',
  'avgSpeed',
  'engineSpeed',
  'engineOilTemp',
  'fuelPrice',
  'tripCost',
  'referenceTrip',
  'CO2Emission',
  'ecoDriving',
  'refueling',
  'modePrivacy',
  'refuelingCost',
  'siphoning',
  'siphoningCost',
  'fuelTankLevel',
  'tripFuelConsumption',
];
const VEHICLE_STRINGS = [
  'color',
  'cod_fin',
  'cod_sil',
  'cod_ccn',
  'lcdv',
  'vis',
  'imei',
  'deliveryDate',
  'manufacturingDate',
  'cod_acc',
  'cod_eng',
  'cod_fam',
  'brand',
  'design',
  'vehLiv',
  'vin',
];
const ALL_KEYS = Array.from({ length: 60 }, (_, i) => String(i + 1));

function expectBase(r: Json, withLastUpdate = true): void {
  expect(typeof r.vin).toBe('string');
  expect(typeof r.contract).toBe('string');
  if (withLastUpdate) expect(r.lastUpdate).toMatch(STAMP);
}

function expectCrash(r: Json, keys: string[]): void {
  expectBase(r);
  for (const f of CRASH_SERIES) expect(Object.keys(r[f] as Json), f).toEqual(keys);
  for (const f of CRASH_NUMBERS) expect(typeof r[f], f).toBe('number');
}

function expectLabel(l: unknown): void {
  expect(Object.keys(l as Json).sort()).toEqual(['advice', 'category', 'evaluation', 'label']);
}

function expectEco(r: Json, variant: 'overall' | 'trip' | 'aggregate'): void {
  expectBase(r);
  const g = r.globalEvaluation as Json;
  const d = r.detailedEvaluation as Json;
  for (const f of ECO_GLOBAL) {
    expect(typeof g[f], f).toBe('number');
    expectLabel(g[`${f}Label`]);
  }
  for (const f of ECO_DETAILED) {
    expect(typeof d[f], f).toBe('number');
    expectLabel(d[`${f}Label`]);
  }
  expect('tripId' in r).toBe(variant === 'trip');
  expect('duration' in g).toBe(variant !== 'overall');
  expect('dateAggr' in g).toBe(variant === 'aggregate');
}

function expectMaintenance(r: Json): void {
  expectBase(r);
  const fuel = r.fuel as Json;
  const maint = r.maintenance as Json;
  for (const f of FUEL) {
    expect(typeof fuel[f], f).toBe('number');
    expect(Object.keys(fuel[`${f}Label`] as Json).sort()).toEqual(['groupLabel', 'label']);
  }
  for (const f of MAINT)
    expect(Object.keys(maint[`${f}Label`] as Json).sort()).toEqual(['groupLabel', 'label']);
  expect(typeof maint.indDayBeforeMaint).toBe('string');
  expect(typeof maint.indMileageBeforeMaint).toBe('string');
  expect(typeof maint.dayBeforeMaint).toBe('number');
  expect(typeof maint.mileageBeforeMaint).toBe('number');
  expect(typeof maint.totMileage).toBe('number');
}

function expectPosition(r: Json): void {
  expectBase(r);
  for (const f of POSITION) {
    for (const v of Object.values(r[f] as Json)) expect(typeof v, f).toBe('string');
  }
}

function expectTrip(r: Json): void {
  for (const f of TRIP_NUMBERS) expect(typeof r[f], f).toBe('number');
  expect(r.dateTripBegin).toMatch(STAMP);
  expect(r.dateUpdate).toMatch(STAMP);
  expect(typeof (r.geoLocalisation as Json).latitude).toBe('string');
  expect(typeof (r.geoLocalisation as Json).longitude).toBe('string');
  expectBase(r, false);
}

function expectSeries(r: Json, fields: string[], keys: string[]): void {
  for (const f of fields) {
    expect(Object.keys(r[f] as Json), f).toEqual(keys);
    for (const v of Object.values(r[f] as Json)) expect(typeof v, f).toBe('number');
  }
}

interface Case {
  method: string;
  path: string;
  body?: unknown;
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON under test
  check: (body: any) => void;
}

/** One valid call per v1 operation id of operations.json, with the v1 record field names it must answer. */
const CASES: Record<string, Case> = {
  'v1.crash.list': {
    method: 'POST',
    path: '/crash/list',
    body: both,
    check: (b) => {
      expect(b).toHaveLength(1); // vehicle B never crashed
      expectCrash(b[0] as Json, ['41']);
    },
  },
  'v1.crash.get': {
    method: 'GET',
    path: `/crash/get/${VIN_A}?${A}&listsecond=41,60`,
    check: (b) => expectCrash(b, ['41', '60']),
  },
  'v1.crash.search': {
    method: 'GET',
    path: `/crash/search/${VIN_A}?${A}&from=202611010000&to=202611302359`,
    check: (b) => {
      expect(b).toHaveLength(2);
      for (const r of b) expectCrash(r, ['41', '60']);
    },
  },
  'v1.ecodriving.evaluation.list': {
    method: 'POST',
    path: '/ecodriving/evaluation/list?locale=en_GB&brand=P',
    body: both,
    check: (b) => {
      expect(b).toHaveLength(1); // vehicle B has no trip
      expectEco(b[0] as Json, 'overall');
    },
  },
  'v1.ecodriving.evaluation.tripDay.list': {
    method: 'POST',
    path: '/ecodriving/evaluation/trip/day/list?locale=en_GB&brand=P&fromday=20261101&today=20261130',
    body: both,
    check: (b) => {
      expect(b.map((r: Json) => (r.globalEvaluation as Json).dateAggr)).toEqual([20261118, 20261120]);
      for (const r of b) expectEco(r, 'aggregate');
    },
  },
  'v1.ecodriving.evaluation.tripDay.get': {
    method: 'GET',
    path: `/ecodriving/evaluation/trip/day/${VIN_A}?${A}&locale=en_GB&brand=P&fromday=20261118&today=20261118`,
    check: (b) => {
      expect(b).toHaveLength(1);
      expectEco(b[0] as Json, 'aggregate');
      expect(b[0].globalEvaluation.duration).toBe(1800);
    },
  },
  'v1.ecodriving.evaluation.perTrip': {
    method: 'GET',
    path: `/ecodriving/evaluation/pertrip/${VIN_A}/1002?${A}&locale=en_GB&brand=P`,
    check: (b) => {
      expectEco(b, 'trip');
      expect(b.tripId).toBe(1002);
      expect((b.globalEvaluation as Json).duration).toBe(1800);
    },
  },
  'v1.ecodriving.evaluation.tripMonth.list': {
    method: 'POST',
    path: '/ecodriving/evaluation/trip/month/list?brand=P&locale=en_GB&frommonth=202610&tomonth=202611',
    body: both,
    check: (b) => {
      expect(b.map((r: Json) => (r.globalEvaluation as Json).dateAggr)).toEqual([202610, 202611]);
      for (const r of b) expectEco(r, 'aggregate');
    },
  },
  'v1.ecodriving.evaluation.tripMonth.get': {
    method: 'GET',
    path: `/ecodriving/evaluation/trip/month/${VIN_A}?${A}&locale=en_GB&brand=P&frommonth=202611&tomonth=202611`,
    check: (b) => {
      expect(b).toHaveLength(1);
      expectEco(b[0] as Json, 'aggregate');
      expect(b[0].globalEvaluation.duration).toBe(1800 + 2400);
    },
  },
  'v1.ecodriving.evaluation.get': {
    method: 'GET',
    path: `/ecodriving/evaluation/get/${VIN_A}?${A}&locale=en_GB&brand=P`,
    check: (b) => expectEco(b, 'overall'),
  },
  'v1.ecodriving.evaluation.lastTrip': {
    method: 'GET',
    path: `/ecodriving/evaluation/lasttrip/${VIN_A}?${A}&locale=en_GB&brand=P`,
    check: (b) => {
      expectEco(b, 'trip');
      expect(b.tripId).toBe(1003);
    },
  },
  'v1.ecodriving.evaluation.dayTrips': {
    method: 'GET',
    path: `/ecodriving/evaluation/daytrips/${VIN_A}?${A}&locale=en_GB&brand=P&day=20261120`,
    check: (b) => {
      expect(b.map((r: Json) => r.tripId)).toEqual([1003]);
      expectEco(b[0] as Json, 'trip');
    },
  },
  'v1.environment.list': {
    method: 'POST',
    path: '/environment/list?listsecond=1,41,60',
    body: both,
    check: (b) => {
      expect(b).toHaveLength(2);
      for (const r of b) {
        expectBase(r);
        expectSeries(r, ['exteriorTemp'], ['41']);
        expectSeries(r, ['infoDayAndNight'], ['1', '41', '60']);
      }
    },
  },
  'v1.environment.get': {
    method: 'GET',
    path: `/environment/get/${VIN_A}?${A}&listsecond=${ALL_KEYS.join(',')}`,
    check: (b) => {
      expectBase(b);
      expectSeries(b, ['exteriorTemp'], ['41']);
      expectSeries(b, ['infoDayAndNight'], ALL_KEYS);
    },
  },
  'v1.maintenance.get': {
    method: 'GET',
    path: `/maintenance/${VIN_A}?${A}&locale=en_GB&brand=P`,
    check: (b) => expectMaintenance(b),
  },
  'v1.maintenance.list': {
    method: 'POST',
    path: '/maintenance/list?locale=fr_FR&brand=C',
    body: both,
    check: (b) => {
      expect(b).toHaveLength(2);
      for (const r of b) expectMaintenance(r);
    },
  },
  'v1.maintenance.alert.list': {
    method: 'POST',
    path: '/maintenance/list/alert?locale=en_GB&brand=P&active=1',
    body: both,
    check: (b) => {
      expect(b.listAlert).toHaveLength(1);
      const entry = (b.listAlert as Json[])[0] as Json;
      expect(Object.keys(entry).sort()).toEqual([...ALERT_ENTRY, 'vin', 'contract'].sort());
      expect(entry.vin).toBe(VIN_A);
    },
  },
  'v1.maintenance.alert.get': {
    method: 'GET',
    path: `/maintenance/alert/${VIN_A}?${A}&locale=en_GB&brand=P&active=0`,
    check: (b) => {
      expect(b.vin).toBe(VIN_A);
      expect(b.contract).toBe(CONTRACT_A);
      expect(b.listAlert).toHaveLength(1);
      expect(Object.keys((b.listAlert as Json[])[0] as Json).sort()).toEqual([...ALERT_ENTRY].sort());
    },
  },
  'v1.place.lastPosition': {
    method: 'GET',
    path: `/place/lastposition/${VIN_A}?${A}&listsecond=6,12,18,24,30,36,42,48,54,60&near=0`,
    check: (b) => {
      expectPosition(b);
      expect(Object.keys(b.latitude as Json)).toEqual([
        '6',
        '12',
        '18',
        '24',
        '30',
        '36',
        '42',
        '48',
        '54',
        '60',
      ]);
    },
  },
  'v1.place.tripPositions': {
    method: 'GET',
    path: `/place/positions/trip/${VIN_A}?${A}&listsecond=6,60&near=0&tripid=1002`,
    check: (b) => {
      expect(b).toHaveLength(30); // a 30-minute trip: one record per minute
      for (const r of b) expectPosition(r);
    },
  },
  'v1.referential.maintenance': {
    method: 'GET',
    path: '/referential/maintenance',
    check: (b) => {
      expect(b).toHaveLength(FUEL.length + MAINT.length);
      for (const r of b)
        expect(Object.keys(r).sort()).toEqual(['indicatorCode', 'indicatorLabel', 'rgrpCode', 'rgrpLabel']);
    },
  },
  'v1.referential.alert': {
    method: 'GET',
    path: '/referential/alert?locale=fr_FR&brand=P',
    check: (b) => {
      const codes = (
        JSON.parse(readFileSync('/work/shared/reference/alert-messages.json', 'utf8')) as { values: string[] }
      ).values;
      expect(b.map((r: Json) => r.indicatorCode).sort()).toEqual([...codes].sort());
      for (const r of b)
        expect(Object.keys(r).sort()).toEqual(['indicatorCode', 'indicatorLabel', 'rgrpCode', 'rgrpLabel']);
    },
  },
  'v1.referential.ecodriving': {
    method: 'GET',
    path: '/referential/ecodriving?locale=en_GB',
    check: (b) => {
      expect(b).toHaveLength((ECO_GLOBAL.length + ECO_DETAILED.length) * 3);
      for (const r of b) {
        expect(Object.keys(r).sort()).toEqual(
          [
            'edMarkType',
            'edMarkLabel',
            'edCategoryCode',
            'edCategoryLabel',
            'edEvaluation',
            'edAdvice',
            'edLevel',
          ].sort(),
        );
      }
    },
  },
  'v1.running.lightStatus.list': {
    method: 'POST',
    path: `/running/lightstatus/list?listsecond=${ALL_KEYS.join(',')}`,
    body: both,
    check: (b) => {
      expect(b).toHaveLength(2);
      for (const r of b) {
        expectBase(r);
        expectSeries(r, ['fogFront', 'fogRear'], ['30', '41', '60']);
        expectSeries(r, ['turnRight', 'turnLeft', 'brakeLight'], ALL_KEYS);
      }
    },
  },
  'v1.safety.drivingAssistance.get': {
    method: 'GET',
    path: `/safety/drivingassistance/${VIN_A}?${A}&listsecond=1,2,3`,
    check: (b) => {
      expectBase(b);
      expect(typeof b.autoECall).toBe('number');
      expectSeries(
        b,
        [
          'afil',
          'respectTimeIntVeh',
          'survBlindSpot',
          'speedInfoPanel',
          'rearSoundParkAssist',
          'frontSoundParkAssist',
          'laneKeepAssistLeft',
          'laneKeepAssistRight',
        ],
        ['1', '2', '3'],
      );
    },
  },
  'v1.safety.drivingAssistance.day': {
    method: 'GET',
    path: `/safety/search/drivingassistance/day/${VIN_A}?${A}&listsecond=1,60&day=20261118`,
    check: (b) => {
      expectBase(b);
      expect(b.lastUpdate).toBe('20261118083000');
      expectSeries(b, ['afil', 'speedInfoPanel'], ['1', '60']);
    },
  },
  'v1.safety.safetyAssistance.get': {
    method: 'GET',
    path: `/safety/safetyassistance/${VIN_A}?${A}&listsecond=1,60`,
    check: (b) => {
      expectBase(b);
      expectSeries(b, ['infoBeltSecurity', 'AdEmergencyBrakeSystem', 'abs', 'esp'], ['1', '60']);
    },
  },
  'v1.safety.safetyAssistance.day': {
    method: 'GET',
    path: `/safety/search/safetyassistance/day/${VIN_A}?${A}&listsecond=60&day=20261120`,
    check: (b) => {
      expectBase(b);
      expectSeries(b, ['infoBeltSecurity', 'AdEmergencyBrakeSystem', 'abs', 'esp'], ['60']);
    },
  },
  'v1.trip.referenceTrip.get': {
    method: 'GET',
    path: `/trip/get/referencetrip/${VIN_A}?${A}&unit=0`,
    check: (b) => {
      expect(b.trips.map((t: Json) => t.tripId)).toEqual([1001]);
      expectTrip(b.trips[0]);
    },
  },
  'v1.trip.referenceTrip.update': {
    method: 'PUT',
    path: `/trip/update/referencetrip/${VIN_A}?${A}&tripid=1002`,
    check: (b) =>
      expect(b).toEqual({ status: 'OK', vin: VIN_A, contract: CONTRACT_A, tripId: 1002, referenceTrip: 1 }),
  },
  'v1.trip.last': {
    method: 'GET',
    path: `/trip/last/${VIN_A}?${A}&limit=2&unit=0`,
    check: (b) => {
      expect(b.totalNumberTrips).toBe(3);
      expect(b.trips.map((t: Json) => t.tripId)).toEqual([1003, 1002]);
      for (const t of b.trips) expectTrip(t);
    },
  },
  'v1.trip.list': {
    method: 'POST',
    path: '/trip/list?from=20261101&to=20261130',
    body: both,
    check: (b) => {
      expect(b.trips.map((t: Json) => t.tripId)).toEqual([1003, 1002]);
      for (const t of b.trips) expectTrip(t);
    },
  },
  'v1.trip.period': {
    method: 'GET',
    path: `/trip/period/${VIN_A}?${A}&from=20261001&to=20261130&limit=1&unit=0`,
    check: (b) => {
      expect(b.totalNumberTrips).toBe(3);
      expect(b.trips.map((t: Json) => t.tripId)).toEqual([1003]);
    },
  },
  'v1.trip.get': {
    method: 'GET',
    path: `/trip/id/${VIN_A}/1003?${A}&unit=0`,
    check: (b) => {
      expectTrip(b);
      expect(b.tripId).toBe(1003);
    },
  },
  'v1.trip.fuelPrice.update': {
    method: 'PUT',
    path: `/trip/update/fuelprice/${VIN_A}/1003?${A}&price=1.9`,
    check: (b) =>
      expect(b).toEqual({ status: 'OK', vin: VIN_A, contract: CONTRACT_A, tripId: 1003, fuelPrice: 1.9 }),
  },
  'v1.trip.referenceFuelPrice.update': {
    method: 'PUT',
    path: `/trip/update/reference/fuelprice/${VIN_A}?${A}&price=1.95`,
    check: (b) => expect(b).toEqual({ status: 'OK', vin: VIN_A, contract: CONTRACT_A, fuelPrice: 1.95 }),
  },
  'v1.trip.referenceFuelPrice.get': {
    method: 'GET',
    path: `/trip/get/reference/fuelprice/${VIN_A}?${A}`,
    check: (b) => expect(b).toEqual({ fuelPrice: 1.789, vin: VIN_A, contract: CONTRACT_A }),
  },
  'v1.vehicle.information': {
    method: 'GET',
    path: `/vehicle/information/${VIN_A}?${A}`,
    check: (b) => {
      for (const f of VEHICLE_STRINGS) expect(typeof b[f], f).toBe('string');
      expect(typeof b.cod_log).toBe('number');
      expect(typeof b.flagSual).toBe('number');
      expect(b.vis).toBe(VIN_A.slice(-8));
      expect(b.imei).toMatch(/^\d{15}$/);
    },
  },
  'v1.vehicle.picture.create': {
    method: 'POST',
    path: `/vehicle/picture/${VIN_A}/${CONTRACT_A}`,
    body: { width: 1200, format: 'jpg', background: 'transparent', trim: 'GT', view: '002', ratio: '4:3' },
    check: (b) => {
      expect(b).toMatchObject({ width: 1200, height: 900, format: 'jpg', view: '002', vin: VIN_A });
      expect(b.url).toMatch(/^https:\/\/.+\/002\.jpg\?width=1200/);
    },
  },
  'v1.vehicle.picture.get': {
    method: 'GET',
    path: `/vehicle/picture/${VIN_A}/${CONTRACT_A}`,
    check: (b) => expect(b).toMatchObject({ width: 800, format: 'png', vin: VIN_A, contract: CONTRACT_A }),
  },
};

const areaD = (
  JSON.parse(readFileSync('/work/shared/spec/operations.json', 'utf8')) as {
    operations: { id: string; area: string; method: string; path: string }[];
  }
).operations.filter((o) => o.area === 'D');

describe('v1 development API: every operation of operations.json', () => {
  it('has one case per area D operation, with the method and path of the spec', () => {
    expect(Object.keys(CASES).sort()).toEqual(areaD.map((o) => o.id).sort());
    for (const op of areaD) {
      const c = CASES[op.id] as Case;
      expect(c.method, op.id).toBe(op.method);
      const template = op.path.replace('/connectedcar/v1/dev', '').replace(/\{[^}]+\}/g, '[^/]+');
      expect(c.path.split('?')[0], op.id).toMatch(new RegExp(`^${template}$`));
    }
  });

  for (const op of areaD) {
    it(`${op.id} answers 200 JSON with the v1 record fields`, async () => {
      const { call } = setup();
      const c = CASES[op.id] as Case;
      const r = await call(c.method, c.path, c.body);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.contentType).toContain('application/json');
      c.check(r.body);
    });
  }
});

describe('v1 parameter validation', () => {
  const bad: [string, string, string, unknown?][] = [
    ['missing contract', `/crash/get/${VIN_A}?listsecond=41`, 'contract'],
    ['empty contract', `/vehicle/information/${VIN_A}?contract=`, 'contract'],
    ['missing listsecond', `/environment/get/${VIN_A}?${A}`, 'listsecond'],
    ['listsecond 0', `/environment/get/${VIN_A}?${A}&listsecond=0`, 'listsecond'],
    ['listsecond 61', `/environment/get/${VIN_A}?${A}&listsecond=1,61`, 'listsecond'],
    ['listsecond not a number', `/environment/get/${VIN_A}?${A}&listsecond=a`, 'listsecond'],
    ['listsecond empty entry', `/environment/get/${VIN_A}?${A}&listsecond=1,,2`, 'listsecond'],
    ['near 2', `/place/lastposition/${VIN_A}?${A}&listsecond=6&near=2`, 'near'],
    ['missing near', `/place/lastposition/${VIN_A}?${A}&listsecond=6`, 'near'],
    ['brand X', `/maintenance/${VIN_A}?${A}&locale=en_GB&brand=X`, 'brand'],
    ['missing brand', `/maintenance/${VIN_A}?${A}&locale=en_GB`, 'brand'],
    ['referential brand X', '/referential/alert?brand=X', 'brand'],
    ['locale not language_COUNTRY', `/maintenance/${VIN_A}?${A}&locale=french&brand=P`, 'locale'],
    ['referential locale fr', '/referential/ecodriving?locale=fr', 'locale'],
    ['unit 2', `/trip/id/${VIN_A}/1003?${A}&unit=2`, 'unit'],
    ['missing unit', `/trip/id/${VIN_A}/1003?${A}`, 'unit'],
    ['active yes', `/maintenance/alert/${VIN_A}?${A}&locale=en_GB&brand=P&active=yes`, 'active'],
    ['limit 0', `/trip/last/${VIN_A}?${A}&limit=0&unit=0`, 'limit'],
    ['limit -1', `/trip/last/${VIN_A}?${A}&limit=-1&unit=0`, 'limit'],
    ['limit abc', `/crash/search/${VIN_A}?${A}&from=202611010000&to=202611010100&limit=abc`, 'limit'],
    ['limit above 1000', `/trip/period/${VIN_A}?${A}&from=20261101&to=20261130&limit=1001`, 'limit'],
    ['missing limit on trip/last', `/trip/last/${VIN_A}?${A}&unit=0`, 'limit'],
    ['tripid not numeric', `/trip/id/${VIN_A}/abc?${A}&unit=0`, 'tripid'],
    [
      'query tripid not numeric',
      `/place/positions/trip/${VIN_A}?${A}&listsecond=6&near=0&tripid=x1`,
      'tripid',
    ],
    ['crash from month 13', `/crash/search/${VIN_A}?${A}&from=202613011200&to=202612011200`, 'from'],
    ['crash to hour 24', `/crash/search/${VIN_A}?${A}&from=202611011200&to=202611012400`, 'to'],
    ['crash from too short', `/crash/search/${VIN_A}?${A}&from=20261101&to=202611012300`, 'from'],
    ['crash to before from', `/crash/search/${VIN_A}?${A}&from=202611021200&to=202611011200`, 'to'],
    [
      'day 20261332',
      `/ecodriving/evaluation/daytrips/${VIN_A}?${A}&locale=en_GB&brand=P&day=20261332`,
      'day',
    ],
    ['day February 30', `/safety/search/safetyassistance/day/${VIN_A}?${A}&listsecond=1&day=20260230`, 'day'],
    [
      'today before fromday',
      `/ecodriving/evaluation/trip/day/${VIN_A}?${A}&locale=en_GB&brand=P&fromday=20261120&today=20261119`,
      'today',
    ],
    [
      'frommonth 202613',
      `/ecodriving/evaluation/trip/month/${VIN_A}?${A}&locale=en_GB&brand=P&frommonth=202613&tomonth=202701`,
      'frommonth',
    ],
    [
      'tomonth before frommonth',
      `/ecodriving/evaluation/trip/month/${VIN_A}?${A}&locale=en_GB&brand=P&frommonth=202611&tomonth=202610`,
      'tomonth',
    ],
    ['trip from with minutes', `/trip/period/${VIN_A}?${A}&from=202611010000&to=20261130`, 'from'],
    ['price 0', `/trip/update/reference/fuelprice/${VIN_A}?${A}&price=0`, 'price'],
    ['price negative', `/trip/update/reference/fuelprice/${VIN_A}?${A}&price=-1.5`, 'price'],
    ['price not a number', `/trip/update/fuelprice/${VIN_A}/1003?${A}&price=cheap`, 'price'],
  ];
  for (const [name, path, field] of bad) {
    it(`answers 400 naming '${field}' for ${name}`, async () => {
      const { call } = setup();
      const method = path.startsWith('/trip/update') ? 'PUT' : 'GET';
      const r = await call(method, path);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ status: 400, code: 'invalid_request', field });
      expect(r.body.error.message).toContain(field);
    });
  }

  it('answers 400 naming width for a picture width that is not a positive integer', async () => {
    const { call } = setup();
    const r = await call('POST', `/vehicle/picture/${VIN_A}/${CONTRACT_A}`, { width: -3 });
    expect(r.status).toBe(400);
    expect(r.body.error.field).toBe('width');
  });
});

describe('v1 bulk bodies', () => {
  const cases: [string, unknown, string][] = [
    ['malformed JSON', '{"listvin": [', 'body'],
    ['an empty body', '', 'body'],
    ['a JSON array', '[]', 'body'],
    ['no listvin', { listcontract: [CONTRACT_A] }, 'listvin'],
    ['listvin not an array', { listvin: VIN_A, listcontract: [CONTRACT_A] }, 'listvin'],
    ['a listvin entry not a string', { listvin: [VIN_A, 7], listcontract: [CONTRACT_A, 'x'] }, 'listvin'],
    ['no listcontract', { listvin: [VIN_A] }, 'listcontract'],
    ['lists of different lengths', { listvin: [VIN_A, VIN_B], listcontract: [CONTRACT_A] }, 'listcontract'],
    ['empty lists', { listvin: [], listcontract: [] }, 'listvin'],
  ];
  for (const [name, body, field] of cases) {
    it(`answers 400 naming '${field}' for ${name}`, async () => {
      const { call } = setup();
      const r = await call('POST', '/maintenance/list?locale=en_GB&brand=P', body);
      expect(r.status).toBe(400);
      expect(r.body.error.field).toBe(field);
    });
  }

  it('refuses more than 100 VINs with a message telling to split the batch', async () => {
    const { call } = setup();
    const vins = Array.from({ length: 101 }, (_, i) => `VIN${String(i).padStart(14, '0')}`);
    const r = await call('POST', '/environment/list?listsecond=1', { listvin: vins, listcontract: vins });
    expect(r.status).toBe(400);
    expect(r.body.error.field).toBe('listvin');
    expect(r.body.error.message).toMatch(/at most 100.*split/);
  });

  it('accepts exactly 100 VINs and skips the unknown ones', async () => {
    const { call } = setup();
    const vins = [VIN_A, ...Array.from({ length: 99 }, (_, i) => `VIN${String(i).padStart(14, '0')}`)];
    const contracts = [CONTRACT_A, ...vins.slice(1)];
    const r = await call('POST', '/environment/list?listsecond=1', {
      listvin: vins,
      listcontract: contracts,
    });
    expect(r.status).toBe(200);
    expect(r.body.map((x: Json) => x.vin)).toEqual([VIN_A]);
  });

  it('skips pairs whose contract does not cover the VIN and answers the others', async () => {
    const { call } = setup();
    const r = await call('POST', '/maintenance/list?locale=en_GB&brand=P', {
      listvin: [VIN_A, VIN_B],
      listcontract: [CONTRACT_B, CONTRACT_B],
    });
    expect(r.status).toBe(200);
    expect(r.body.map((x: Json) => x.vin)).toEqual([VIN_B]);
  });

  it('answers a VIN repeated in the batch once', async () => {
    const { call } = setup();
    const r = await call('POST', '/environment/list?listsecond=1', {
      listvin: [VIN_A, VIN_A],
      listcontract: [CONTRACT_A, CONTRACT_A],
    });
    expect(r.body.map((x: Json) => x.vin)).toEqual([VIN_A]);
  });

  it('validates the query before the body', async () => {
    const { call } = setup();
    const r = await call('POST', '/environment/list', both);
    expect(r.status).toBe(400);
    expect(r.body.error.field).toBe('listsecond');
  });
});

describe('v1 vehicle access', () => {
  const paths = [
    `/crash/get/%VIN%?contract=%C%&listsecond=41`,
    `/trip/id/%VIN%/1003?contract=%C%&unit=0`,
    `/maintenance/alert/%VIN%?contract=%C%&locale=en_GB&brand=P&active=1`,
    `/vehicle/information/%VIN%?contract=%C%`,
    `/vehicle/picture/%VIN%/%C%`,
  ];
  for (const p of paths) {
    it(`answers 404 for an unknown VIN and 403 for a contract of another vehicle: ${p.split('/')[1]}`, async () => {
      const { call } = setup();
      const unknown = await call('GET', p.replace('%VIN%', 'VF3UNKNOWN0000000').replace('%C%', CONTRACT_A));
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toMatchObject({ code: 'not_found', field: 'vin' });
      const mismatch = await call('GET', p.replace('%VIN%', VIN_A).replace('%C%', CONTRACT_B));
      expect(mismatch.status).toBe(403);
      expect(mismatch.body.error).toMatchObject({ code: 'forbidden', field: 'contract' });
    });
  }

  it('answers 404 naming tripid for a trip of another vehicle or no trip', async () => {
    const { call } = setup();
    const r = await call('GET', `/ecodriving/evaluation/pertrip/${VIN_A}/9999?${A}&locale=en_GB&brand=P`);
    expect(r.status).toBe(404);
    expect(r.body.error.field).toBe('tripid');
  });

  it('answers 404 for records a vehicle does not have: crash, eco-driving, last trip', async () => {
    const { call } = setup();
    const B = `contract=${CONTRACT_B}`;
    expect((await call('GET', `/crash/get/${VIN_B}?${B}&listsecond=41`)).status).toBe(404);
    expect((await call('GET', `/ecodriving/evaluation/get/${VIN_B}?${B}&locale=en_GB&brand=C`)).status).toBe(
      404,
    );
    expect(
      (await call('GET', `/ecodriving/evaluation/lasttrip/${VIN_B}?${B}&locale=en_GB&brand=C`)).status,
    ).toBe(404);
  });

  it('answers 404 for positions of a vehicle whose user did not allow geolocation', async () => {
    const { call } = setup();
    const r = await call('GET', `/place/lastposition/${VIN_B}?contract=${CONTRACT_B}&listsecond=6&near=0`);
    expect(r.status).toBe(404);
  });

  it('answers 404 naming day for a safety search on a day without data', async () => {
    const { call } = setup();
    const r = await call(
      'GET',
      `/safety/search/drivingassistance/day/${VIN_A}?${A}&listsecond=1&day=20261119`,
    );
    expect(r.status).toBe(404);
    expect(r.body.error.field).toBe('day');
  });
});

describe('v1 series semantics', () => {
  it('keys series by the requested seconds only, where the record has data for them', async () => {
    const { call } = setup();
    const r = await call('GET', `/environment/get/${VIN_A}?${A}&listsecond=2,1,41,2`);
    expect(Object.keys(r.body.infoDayAndNight)).toEqual(['1', '2', '41']);
    expect(Object.keys(r.body.exteriorTemp)).toEqual(['41']);
    const none = await call('GET', `/environment/get/${VIN_A}?${A}&listsecond=5`);
    expect(none.body.exteriorTemp).toEqual({});
  });

  it('answers the last minute of data of a parked car with a stable lastUpdate', async () => {
    const { fx, call } = setup();
    const first = await call('GET', `/environment/get/${VIN_A}?${A}&listsecond=60`);
    fx.advance(3_600_000);
    const later = await call('GET', `/environment/get/${VIN_A}?${A}&listsecond=60`);
    expect(first.body.lastUpdate).toBe('20261120114000');
    expect(later.body).toEqual(first.body);
  });

  it('keys the crash list by 41 by default and by the requested seconds otherwise', async () => {
    const { call } = setup();
    const r = await call('POST', '/crash/list?listsecond=60', both);
    expect(Object.keys(r.body[0].flipVeh)).toEqual(['60']);
  });

  it('omits position seconds without a sample when near=0', async () => {
    const { call } = setup();
    const r = await call('GET', `/place/lastposition/${VIN_A}?${A}&listsecond=7,12&near=0`);
    expect(Object.keys(r.body.latitude)).toEqual(['12']);
  });

  it('answers the next sampled value for a second without data when near=1', async () => {
    const { call } = setup();
    const r = await call('GET', `/place/lastposition/${VIN_A}?${A}&listsecond=7,12,59&near=1`);
    expect(Object.keys(r.body.latitude)).toEqual(['7', '12', '59']);
    expect(r.body.latitude['7']).toBe(r.body.latitude['12']);
    const exact = await call('GET', `/place/lastposition/${VIN_A}?${A}&listsecond=60&near=0`);
    expect(r.body.latitude['59']).toBe(exact.body.latitude['60']);
  });

  it('answers one position record per minute of a trip, the last one ending at the stop position', async () => {
    const { fx, call } = setup();
    // Trip 1001 lasts exactly 20 minutes: a 21st record would only hold seconds after the stop.
    const r = await call('GET', `/place/positions/trip/${VIN_A}?${A}&listsecond=6,60&near=1&tripid=1001`);
    expect(r.body).toHaveLength(20);
    const last = r.body[19];
    const trip = fx.trips.find((t) => t.v1Id === 1001);
    expect(last.latitude['60']).toBe(trip?.stopPosition.lat.toFixed(6));
  });

  it('signals a right turn, the brake light and the unbuckled belt at the end of the last trip', async () => {
    const { call } = setup();
    const seconds = ALL_KEYS.join(',');
    const light = await call('POST', `/running/lightstatus/list?listsecond=${seconds}`, both);
    const a = light.body[0];
    expect(Object.values(a.turnRight)).toContain(1);
    // Left: the world's own turn signal (keys 10..14 are 50..46 s before the stop); right: the heading.
    expect(
      Object.entries(a.turnLeft)
        .filter(([, v]) => v === 1)
        .map(([k]) => k),
    ).toEqual(['10', '11', '12', '13', '14']);
    expect(a.brakeLight['60']).toBe(1);
    expect(a.brakeLight['10']).toBe(0);
    const safety = await call('GET', `/safety/safetyassistance/${VIN_A}?${A}&listsecond=${seconds}`);
    expect(safety.body.infoBeltSecurity['60']).toBe(1);
    expect(safety.body.infoBeltSecurity['10']).toBe(0);
    const driving = await call('GET', `/safety/drivingassistance/${VIN_A}?${A}&listsecond=10`);
    // The rollover 20 s before the stop triggers the automatic emergency call.
    expect(driving.body.autoECall).toBe(1);
    expect(driving.body.speedInfoPanel['10']).toBe(90);
  });
});

describe('v1 records from the world', () => {
  it('renders collision levels per side, rollover and pedestrian impact', async () => {
    const { call } = setup();
    const r = await call('GET', `/crash/search/${VIN_A}?${A}&from=202611010000&to=202611302359&limit=10`);
    const [latest, older] = r.body;
    expect(latest.highRearCrashInfo).toEqual({ 41: 1, 60: 1 });
    expect(latest.lowLatCrashInfo['60']).toBe(1);
    expect(latest.flipVeh['60']).toBe(1);
    expect(latest.pedestCrashInfo1_60).toBe(0);
    expect(latest.totMileage['60']).toBeGreaterThan(12475);
    expect(older.avgFrontCrashInfoN1['60'] + older.avgFrontCrashInfoN2['60']).toBe(1);
    expect(older.repairLatCrashInfo['41']).toBe(1);
    expect(older.pedestCrashInfo1_41).toBe(1);
    expect(older.pedestCrashInfo2_60).toBe(1);
    expect(older.pedestCrashInfo3_60).toBe(0);
    const limited = await call(
      'GET',
      `/crash/search/${VIN_A}?${A}&from=202611010000&to=202611302359&limit=1`,
    );
    expect(limited.body).toHaveLength(1);
  });

  it('renders alert dates, state and the message in the requested locale', async () => {
    const { call } = setup();
    const active = await call('GET', `/maintenance/alert/${VIN_A}?${A}&locale=fr_FR&brand=P&active=1`);
    expect(active.body.listAlert[0]).toMatchObject({
      idAlert: 'alert-active',
      alertState: 1,
      dateAlertBegin: '20261120113000',
      dateAlertEnd: '',
      alert: 'Niveau de carburant bas',
      category: 'fuel',
    });
    expect(active.body.listAlert[0].advise).toMatch(/Arrêtez/);
    const ended = await call('GET', `/maintenance/alert/${VIN_A}?${A}&locale=en_GB&brand=P&active=0`);
    expect(ended.body.listAlert[0]).toMatchObject({
      idAlert: 'alert-ended',
      alertState: 0,
      dateAlertEnd: '20261118082500',
      alert: 'Boot open',
    });
  });

  it('renders maintenance indicators from the countdown and the low-fuel warning', async () => {
    const { call } = setup();
    const r = await call('POST', '/maintenance/list?locale=en_GB&brand=P', both);
    const [a, b] = r.body;
    expect(a.maintenance).toMatchObject({ dayBeforeMaint: 12, mileageBeforeMaint: 2500 });
    expect(a.maintenance.indDayBeforeMaint).toBe('1');
    expect(a.maintenance.indMileageBeforeMaint).toBe('0');
    expect(a.fuel.fuelTankAlerte).toBe(1);
    expect(a.fuel.instFuelConsumption60).toBe(6.5);
    expect(b.maintenance.indDayBeforeMaint).toBe('2');
    expect(b.maintenance.indMileageBeforeMaint).toBe('2');
    expect(b.fuel.fuelTankAlerte).toBe(0);
    expect(a.fuel.fuelLevelLabel).toEqual({ label: 'Fuel level (%)', groupLabel: 'Fuel' });
    const fr = await call('GET', `/maintenance/${VIN_A}?${A}&locale=fr_FR&brand=P`);
    expect(fr.body.fuel.fuelLevelLabel.groupLabel).toBe('Carburant');
  });

  it('labels eco-driving marks in the requested locale from the score level', async () => {
    const { call } = setup();
    const en = await call('GET', `/ecodriving/evaluation/pertrip/${VIN_A}/1001?${A}&locale=en_GB&brand=P`);
    expect(en.body.globalEvaluation.drivingMark).toBe(80);
    expect(en.body.globalEvaluation.drivingMarkLabel).toMatchObject({
      evaluation: 'Good',
      label: 'Driving mark',
    });
    expect(en.body.detailedEvaluation.speedLabel.evaluation).toBe('Average');
    const fr = await call('GET', `/ecodriving/evaluation/pertrip/${VIN_A}/1003?${A}&locale=fr_FR&brand=P`);
    expect(fr.body.detailedEvaluation.speedLabel).toMatchObject({
      evaluation: 'À améliorer',
      label: 'Vitesse',
    });
  });

  it('weights the overall evaluation by trip duration', async () => {
    const { call } = setup();
    const r = await call('GET', `/ecodriving/evaluation/get/${VIN_A}?${A}&locale=en_GB&brand=P`);
    // 80 × 1200 s, 60 × 1800 s, 40 × 2400 s
    expect(r.body.globalEvaluation.drivingMark).toBe(55.6);
  });

  it('converts trip distances, speeds and consumption with unit=1', async () => {
    const { call } = setup();
    const metric = (await call('GET', `/trip/id/${VIN_A}/1003?${A}&unit=0`)).body;
    const imperial = (await call('GET', `/trip/id/${VIN_A}/1003?${A}&unit=1`)).body;
    expect(metric.tripMileage).toBe(60);
    expect(metric.avgSpeed).toBe(90);
    expect(metric.avgFuelConsumption).toBe(6);
    expect(imperial.tripMileage).toBe(37.3);
    expect(imperial.avgSpeed).toBe(55.9);
    expect(imperial.avgFuelConsumption).toBe(47.1);
    expect(imperial.totMileage).toBe(Math.round(((12475.3 + 60) / 1.609344) * 10) / 10);
    expect(imperial.tripFuelConsumption).toBe(metric.tripFuelConsumption);
  });

  it('renders refuel and fuel theft before the trip, with their cost at the reference price', async () => {
    const { call } = setup();
    const t = (await call('GET', `/trip/id/${VIN_A}/1003?${A}&unit=0`)).body;
    expect(t).toMatchObject({ refueling: 1, siphoning: 1, refuelingCost: 53.67, siphoningCost: 14.31 });
    expect(t.dateTripBegin).toBe('20261120110000');
    expect(t.tripCost).toBe(Math.round(3.6 * 1.789 * 100) / 100);
    const older = (await call('GET', `/trip/id/${VIN_A}/1002?${A}&unit=0`)).body;
    expect(older).toMatchObject({ refueling: 0, siphoning: 0, siphoningCost: 0 });
  });

  it('answers the same vehicle information on every call', async () => {
    const { call } = setup();
    const a = await call('GET', `/vehicle/information/${VIN_A}?${A}`);
    const b = await call('GET', `/vehicle/information/${VIN_A}?${A}`);
    expect(a.body).toEqual(b.body);
    expect(a.body.brand).toBe('P');
  });
});

describe('v1 updates', () => {
  it('shows a trip marked as reference in the reference trips', async () => {
    const { call } = setup();
    await call('PUT', `/trip/update/referencetrip/${VIN_A}?${A}&tripid=1002`);
    const r = await call('GET', `/trip/get/referencetrip/${VIN_A}?${A}&unit=0`);
    expect(r.body.trips.map((t: Json) => t.tripId)).toEqual([1002, 1001]);
    expect(r.body.trips[0].referenceTrip).toBe(1);
  });

  it('prices a trip with its own fuel price once set', async () => {
    const { call } = setup();
    await call('PUT', `/trip/update/fuelprice/${VIN_A}/1003?${A}&price=2`);
    const t = (await call('GET', `/trip/id/${VIN_A}/1003?${A}&unit=0`)).body;
    expect(t.fuelPrice).toBe(2);
    expect(t.tripCost).toBe(7.2);
  });

  it('answers the new reference fuel price and prices trips without their own with it', async () => {
    const { call } = setup();
    await call('PUT', `/trip/update/reference/fuelprice/${VIN_A}?${A}&price=1.5`);
    const r = await call('GET', `/trip/get/reference/fuelprice/${VIN_A}?${A}`);
    expect(r.body.fuelPrice).toBe(1.5);
    const t = (await call('GET', `/trip/id/${VIN_A}/1002?${A}&unit=0`)).body;
    expect(t.fuelPrice).toBe(1.5);
  });

  it('keeps the picture options posted for a VIN', async () => {
    const { call } = setup();
    await call('POST', `/vehicle/picture/${VIN_A}/${CONTRACT_A}`, {
      width: 640,
      format: 'webp',
      view: '003',
    });
    const r = await call('GET', `/vehicle/picture/${VIN_A}/${CONTRACT_A}`);
    expect(r.body).toMatchObject({
      width: 640,
      height: 360,
      format: 'webp',
      view: '003',
      background: 'white',
    });
    const other = await call('GET', `/vehicle/picture/${VIN_B}/${CONTRACT_B}`);
    expect(other.body.width).toBe(800);
  });
});
