/**
 * A small hand-built world for the v1 route tests: two vehicles, alerts, collisions, trips with
 * eco-driving and waypoints, events, maintenance and per-second telemetry derived from the trips.
 * It implements the same `WorldView & WorldMutations` contract as the real world (sim/world).
 */
import type {
  EcoScore,
  GeoPoint,
  SimAlert,
  SimCollision,
  SimEcoDriving,
  SimEvent,
  SimMaintenance,
  SimServiceEligibility,
  SimTelemetry,
  SimTrip,
  SimUser,
  SimVehicle,
  SimWaypoint,
  WorldMutations,
  WorldView,
} from '../../sim/world/types';

export const NOW = Date.UTC(2026, 10, 20, 12, 0, 0); // 2026-11-20 12:00:00 UTC
const MIN = 60_000;

export const VIN_A = 'VF3AAAAAAAA000001';
export const CONTRACT_A = '620000001';
export const VIN_B = 'VR7BBBBBBBB000002';
export const CONTRACT_B = '620000002';

function eco(score: number): EcoScore {
  return { score, evaluation: 'world text', advice: 'world advice', category: 'world', label: 'world label' };
}

function ecodriving(base: number): SimEcoDriving {
  return {
    global: { trend: eco(base), style: eco(base - 10), road: eco(base + 5) },
    detailed: {
      acceleration: eco(base - 20),
      braking: eco(base),
      engineSpeed: eco(base + 10),
      stopAndStart: eco(90),
      speed: eco(base - 30),
      slope: eco(50),
      coldTrips: eco(30),
    },
  };
}

/** A straight trip northwards at `speedKmh`, turning right (heading 90) `turnAtS` seconds before the stop. */
function trip(opts: {
  id: string;
  v1Id: number;
  vehicleId: string;
  start: number;
  minutes: number;
  speedKmh: number;
  startOdometerKm: number;
  ecoBase: number;
  refueling?: boolean;
  reference?: boolean;
}): SimTrip {
  const durationS = opts.minutes * 60;
  const stoppedAt = opts.start + durationS * 1000;
  const distanceKm = (opts.speedKmh * durationS) / 3600;
  const startPosition: GeoPoint = { lat: 48.8, lon: 2.3, alt: 35 };
  const stopPosition: GeoPoint = { lat: 48.8 + distanceKm / 111, lon: 2.3, alt: 60 };
  const waypoints: SimWaypoint[] = [];
  for (let t = opts.start; t <= stoppedAt; t += 10_000) {
    const f = (t - opts.start) / (stoppedAt - opts.start);
    waypoints.push({
      at: t,
      position: {
        lat: startPosition.lat + (stopPosition.lat - startPosition.lat) * f,
        lon: startPosition.lon,
        alt: startPosition.alt + (stopPosition.alt - startPosition.alt) * f,
      },
      heading: stoppedAt - t <= 30_000 ? 90 : 0,
      speedKmh: opts.speedKmh,
    });
  }
  const fuelConsumptionL = distanceKm * 0.06;
  return {
    id: opts.id,
    v1Id: opts.v1Id,
    vehicleId: opts.vehicleId,
    startedAt: opts.start,
    stoppedAt,
    durationS,
    distanceKm,
    fuelConsumptionL,
    avgConsumptionL100: 6,
    avgSpeedKmh: opts.speedKmh,
    co2Kg: fuelConsumptionL * 2.3,
    refueling: opts.refueling ?? false,
    startPosition,
    stopPosition,
    startOdometerKm: opts.startOdometerKm,
    waypoints,
    ecodriving: ecodriving(opts.ecoBase),
    createdAt: stoppedAt,
    updatedAt: stoppedAt,
    reference: opts.reference ?? false,
  };
}

export interface V1Fixture {
  readonly world: WorldView & WorldMutations;
  readonly vehicleA: SimVehicle;
  readonly vehicleB: SimVehicle;
  readonly trips: readonly SimTrip[];
  advance(ms: number): void;
}

export function createV1Fixture(): V1Fixture {
  let now = NOW;
  const user: SimUser = {
    id: 'user-1',
    email: 'ada@example.test',
    firstName: 'Ada',
    lastName: 'Lovelace',
    brand: 'P',
    createdAt: NOW - 400 * 86_400_000,
    updatedAt: NOW - 400 * 86_400_000,
    vehicleIds: ['veh-a', 'veh-b'],
    revoked: false,
  };
  const trips: SimTrip[] = [
    trip({
      id: 'trip-oct',
      v1Id: 1001,
      vehicleId: 'veh-a',
      start: Date.UTC(2026, 9, 15, 7, 0),
      minutes: 20,
      speedKmh: 45,
      startOdometerKm: 12000,
      ecoBase: 80,
      reference: true,
    }),
    trip({
      id: 'trip-18',
      v1Id: 1002,
      vehicleId: 'veh-a',
      start: Date.UTC(2026, 10, 18, 8, 0),
      minutes: 30,
      speedKmh: 60,
      startOdometerKm: 12400,
      ecoBase: 60,
    }),
    trip({
      id: 'trip-20',
      v1Id: 1003,
      vehicleId: 'veh-a',
      start: Date.UTC(2026, 10, 20, 11, 0),
      minutes: 40,
      speedKmh: 90,
      startOdometerKm: 12475.3,
      ecoBase: 40,
      refueling: true,
    }),
  ];
  const lastTrip = trips[2] as SimTrip;
  const vehicleA: SimVehicle = {
    id: 'veh-a',
    vin: VIN_A,
    contract: CONTRACT_A,
    brand: 'P',
    userId: user.id,
    model: 'Roadster 308',
    subModel: 'GT',
    engine: '1.2 PureTech 130',
    gearbox: 'manual',
    energy: 'petrol',
    createdAt: NOW - 365 * 86_400_000,
    updatedAt: lastTrip.stoppedAt,
    odometerKm: lastTrip.startOdometerKm + lastTrip.distanceKm,
    fuelLevelPct: 8,
    position: lastTrip.stopPosition,
    heading: 90,
    positionAt: lastTrip.stoppedAt,
    geolocationAllowed: true,
    referenceFuelPrice: 1.789,
  };
  const vehicleB: SimVehicle = {
    id: 'veh-b',
    vin: VIN_B,
    contract: CONTRACT_B,
    brand: 'C',
    userId: user.id,
    model: 'Berline C5',
    subModel: 'Feel',
    engine: 'BlueHDi 130',
    gearbox: 'automatic',
    energy: 'diesel',
    createdAt: NOW - 100 * 86_400_000,
    updatedAt: NOW - 86_400_000,
    odometerKm: 5400,
    fuelLevelPct: 70,
    position: { lat: 45.76, lon: 4.83, alt: 170 },
    heading: 0,
    positionAt: NOW - 86_400_000,
    geolocationAllowed: false,
    referenceFuelPrice: 1.659,
  };
  const vehicles = [vehicleA, vehicleB];
  const alerts: SimAlert[] = [
    {
      id: 'alert-ended',
      vehicleId: 'veh-a',
      code: 'trunkOpen',
      severity: 'low',
      category: 'openings',
      position: vehicleA.position,
      createdAt: Date.UTC(2026, 10, 18, 8, 10),
      updatedAt: Date.UTC(2026, 10, 18, 8, 25),
      active: false,
      endedAt: Date.UTC(2026, 10, 18, 8, 25),
    },
    {
      id: 'alert-active',
      vehicleId: 'veh-a',
      code: 'fuelLevelAlarm',
      severity: 'high',
      category: 'fuel',
      position: vehicleA.position,
      tripId: lastTrip.id,
      createdAt: Date.UTC(2026, 10, 20, 11, 30),
      updatedAt: Date.UTC(2026, 10, 20, 11, 30),
      active: true,
    },
  ];
  const collisions: SimCollision[] = [
    {
      id: 'col-old',
      vehicleId: 'veh-a',
      rollOver: false,
      pedestrian: true,
      front: 'medium',
      rear: 'none',
      lateral: 'fixable',
      position: vehicleA.position,
      createdAt: Date.UTC(2026, 10, 18, 8, 20),
      updatedAt: Date.UTC(2026, 10, 18, 8, 20),
    },
    {
      id: 'col-new',
      vehicleId: 'veh-a',
      tripId: lastTrip.id,
      rollOver: true,
      pedestrian: false,
      front: 'none',
      rear: 'high',
      lateral: 'low',
      position: lastTrip.stopPosition,
      createdAt: lastTrip.stoppedAt - 20_000,
      updatedAt: lastTrip.stoppedAt - 20_000,
    },
  ];
  const maintenance: SimMaintenance[] = [
    { vehicleId: 'veh-a', days: 12, mileage: 2500, createdAt: NOW - 86_400_000, updatedAt: NOW - 86_400_000 },
    { vehicleId: 'veh-b', days: -3, mileage: -150, createdAt: NOW - 86_400_000, updatedAt: NOW - 86_400_000 },
  ];
  const events: SimEvent[] = [
    {
      id: 'ev-refuel',
      vehicleId: 'veh-a',
      type: 'REFUEL',
      recordId: 'refuel-1',
      liters: 30,
      createdAt: lastTrip.startedAt - 10 * MIN,
      updatedAt: lastTrip.startedAt - 10 * MIN,
    },
    {
      id: 'ev-stolen',
      vehicleId: 'veh-a',
      type: 'FUEL_STOLEN',
      recordId: 'theft-1',
      liters: 8,
      createdAt: lastTrip.startedAt - 5 * MIN,
      updatedAt: lastTrip.startedAt - 5 * MIN,
    },
  ];

  const vehicleTrips = (vehicleId: string) => trips.filter((t) => t.vehicleId === vehicleId);

  /**
   * Telemetry: while a trip runs the car moves at the trip's speed, slowing down 5 km/h per second
   * in its last 10 s; the seat belt is unbuckled in its last 5 s; night before 07:00 and after 18:00
   * UTC with 2 °C, day with 14 °C.
   */
  const telemetryAt = (vehicleId: string, at: number): SimTelemetry | undefined => {
    const vehicle = vehicles.find((v) => v.id === vehicleId);
    if (!vehicle) return undefined;
    const hour = new Date(at).getUTCHours();
    const day = hour >= 7 && hour < 18;
    const current = vehicleTrips(vehicleId).find((t) => t.startedAt <= at && at <= t.stoppedAt);
    if (!current) {
      return {
        at,
        moving: false,
        running: false,
        speedKmh: 0,
        day,
        airTemp: day ? 14 : 2,
        odometer: vehicle.odometerKm,
      };
    }
    const left = (current.stoppedAt - at) / 1000;
    const speedKmh = left < 10 ? left * 5 : current.avgSpeedKmh;
    const f = (at - current.startedAt) / (current.stoppedAt - current.startedAt);
    return {
      at,
      moving: speedKmh > 0,
      running: true,
      speedKmh,
      day,
      airTemp: day ? 14 : 2,
      seatbeltUnbuckled: left < 5,
      // The driver signals left 45 to 50 s before each stop (the heading never turns left).
      ...(left > 45 && left <= 50 ? { turnSignal: 'left' as const } : {}),
      odometer: current.startOdometerKm + current.distanceKm * f,
      fuel: { level: vehicle.fuelLevelPct, consumption: 0.065 },
    };
  };

  const world: WorldView & WorldMutations = {
    now: () => now,
    users: () => [user],
    user: (id) => (id === user.id ? user : undefined),
    vehicles: () => vehicles,
    vehicle: (id) => vehicles.find((v) => v.id === id),
    vehicleByVin: (vin) => vehicles.find((v) => v.vin === vin),
    v1Knows: (vin) => vehicles.some((v) => v.vin === vin),
    setV1Known: () => false,
    alerts: (vehicleId) => alerts.filter((a) => a.vehicleId === vehicleId),
    collisions: (vehicleId) => collisions.filter((c) => c.vehicleId === vehicleId),
    maintenance: (vehicleId) => maintenance.find((m) => m.vehicleId === vehicleId),
    trips: vehicleTrips,
    trip: (tripId) => trips.find((t) => t.id === tripId),
    events: (vehicleId) => events.filter((e) => e.vehicleId === vehicleId),
    telemetryAt,
    services: (): readonly SimServiceEligibility[] => [],
    map: () => undefined,
    setReferenceTrip(tripId, reference) {
      const t = trips.find((x) => x.id === tripId);
      if (t) {
        t.reference = reference;
        t.updatedAt = now;
      }
    },
    setTripFuelPrice(tripId, price) {
      const t = trips.find((x) => x.id === tripId);
      if (t) {
        t.fuelPrice = price;
        t.updatedAt = now;
      }
    },
    setReferenceFuelPrice(vehicleId, price) {
      const v = vehicles.find((x) => x.id === vehicleId);
      if (v) {
        v.referenceFuelPrice = price;
        v.updatedAt = now;
      }
    },
  };
  return {
    world,
    vehicleA,
    vehicleB,
    trips,
    advance(ms) {
      now += ms;
    },
  };
}
