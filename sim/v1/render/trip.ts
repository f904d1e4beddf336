import { hashedInt } from '../../world/prng';
import type { SimTrip, SimVehicle, WorldView } from '../../world/types';
import { formatStamp, kmToMiles, l100ToMpg, round } from '../format';
import type { Unit } from '../params';
import { tankCapacity } from './maintenance';

export interface TripRecord {
  tripId: number;
  dateTripBegin: string;
  tripDuration: number;
  dateUpdate: string;
  avgFuelConsumption: number;
  deltaFuelLevel: number;
  tripMileage: number;
  totMileage: number;
  avgSpeed: number;
  engineSpeed: number;
  engineOilTemp: number;
  fuelPrice: number;
  tripCost: number;
  referenceTrip: number;
  CO2Emission: number;
  ecoDriving: number;
  refueling: number;
  modePrivacy: number;
  refuelingCost: number;
  siphoning: number;
  siphoningCost: number;
  fuelTankLevel: number;
  tripFuelConsumption: number;
  geoLocalisation: { latitude: string; longitude: string };
  vin: string;
  contract: string;
}

/** Trips of a vehicle, newest first. */
export function tripsNewestFirst(world: WorldView, vehicle: SimVehicle): SimTrip[] {
  return [...world.trips(vehicle.id)].sort((a, b) => b.startedAt - a.startedAt);
}

/**
 * One world trip as a v1 trip record. Metric: km, km/h, l/100 km. Imperial (`unit=1`): miles, mph and
 * miles per imperial gallon; liters, kg of CO2 and °C stay as they are. Refuel and fuel-theft events
 * between the previous trip's stop and this trip's stop make `refuelingCost` and `siphoning`.
 */
export function renderTrip(world: WorldView, vehicle: SimVehicle, trip: SimTrip, unit: Unit): TripRecord {
  const imperial = unit === 'imperial';
  const dist = (km: number) => round(imperial ? kmToMiles(km) : km, 1);
  const fuelPrice = trip.fuelPrice ?? vehicle.referenceFuelPrice;
  const previousStop = Math.max(
    -Infinity,
    ...world
      .trips(vehicle.id)
      .filter((t) => t.stoppedAt < trip.startedAt)
      .map((t) => t.stoppedAt),
  );
  const events = world
    .events(vehicle.id)
    .filter((e) => e.createdAt > previousStop && e.createdAt <= trip.stoppedAt);
  const liters = (type: 'REFUEL' | 'FUEL_STOLEN') =>
    events.filter((e) => e.type === type).reduce((sum, e) => sum + (e.liters ?? 0), 0);
  const stolen = events.some((e) => e.type === 'FUEL_STOLEN');
  const capacity = tankCapacity(vehicle);
  const endLevel = world.telemetryAt(vehicle.id, trip.stoppedAt)?.fuel?.level ?? vehicle.fuelLevelPct;
  // Telemetry may lack engine data for the trip: a plausible figure from the trip's average speed.
  const engineSpeed = Math.round(1400 + trip.avgSpeedKmh * 12 + hashedInt(`${trip.id}:rpm`, 0, 150));
  const privacy = !vehicle.geolocationAllowed;
  return {
    tripId: trip.v1Id,
    dateTripBegin: formatStamp(trip.startedAt),
    tripDuration: trip.durationS,
    dateUpdate: formatStamp(trip.updatedAt),
    avgFuelConsumption: round(imperial ? l100ToMpg(trip.avgConsumptionL100) : trip.avgConsumptionL100, 1),
    deltaFuelLevel: capacity > 0 ? round((-trip.fuelConsumptionL / capacity) * 100, 1) : 0,
    tripMileage: dist(trip.distanceKm),
    totMileage: dist(trip.startOdometerKm + trip.distanceKm),
    avgSpeed: round(imperial ? kmToMiles(trip.avgSpeedKmh) : trip.avgSpeedKmh, 1),
    engineSpeed,
    engineOilTemp: 85 + hashedInt(`${trip.id}:oil`, 0, 15),
    fuelPrice: round(fuelPrice, 3),
    tripCost: round(trip.fuelConsumptionL * fuelPrice, 2),
    referenceTrip: trip.reference ? 1 : 0,
    CO2Emission: round(trip.co2Kg, 2),
    ecoDriving: round(trip.ecodriving.global.trend.score, 1),
    refueling: trip.refueling ? 1 : 0,
    modePrivacy: privacy ? 1 : 0,
    refuelingCost: round(liters('REFUEL') * fuelPrice, 2),
    siphoning: stolen ? 1 : 0,
    siphoningCost: round(liters('FUEL_STOLEN') * fuelPrice, 2),
    fuelTankLevel: round(endLevel, 1),
    tripFuelConsumption: round(trip.fuelConsumptionL, 2),
    // Privacy mode hides where the trip started.
    geoLocalisation: privacy
      ? { latitude: '', longitude: '' }
      : { latitude: trip.startPosition.lat.toFixed(6), longitude: trip.startPosition.lon.toFixed(6) },
    vin: vehicle.vin,
    contract: vehicle.contract,
  };
}
