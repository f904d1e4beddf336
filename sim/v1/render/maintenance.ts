import { hashedInt } from '../../world/prng';
import type { SimMaintenance, SimVehicle, WorldView } from '../../world/types';
import { formatStamp, round } from '../format';
import {
  FUEL_LABELS,
  type FuelIndicator,
  MAINTENANCE_GROUPS,
  MAINTENANCE_LABELS,
  type MaintenanceIndicator,
  tr,
} from '../labels';
import type { Lang } from '../params';
import { lastDataAt, secondAt } from '../window';

export interface GroupLabel {
  label: string;
  groupLabel: string;
}

export interface MaintenanceRecord {
  fuel: Record<string, number | GroupLabel>;
  maintenance: Record<string, number | string | GroupLabel>;
  vin: string;
  lastUpdate: string;
  contract: string;
}

/** Days / km under which maintenance is "due soon" (indicator 1); below zero it is overdue (2). */
export const DUE_SOON_DAYS = 30;
export const DUE_SOON_KM = 1000;
/** Fuel level (%) under which `fuelTankAlerte` is 1. */
export const LOW_FUEL_PCT = 10;

/** Indicator strings: "0" not due, "1" due soon, "2" overdue. */
export function dueIndicator(remaining: number, soon: number): string {
  if (remaining < 0) return '2';
  if (remaining <= soon) return '1';
  return '0';
}

/** Tank capacity in liters, deterministic per model (the world does not carry one); 0 for electric. */
export function tankCapacity(vehicle: SimVehicle): number {
  return vehicle.energy === 'electric' ? 0 : hashedInt(`tank:${vehicle.model}`, 42, 62);
}

const INST_SECONDS = [10, 20, 30, 40, 50, 60] as const;

export function renderMaintenance(
  world: WorldView,
  vehicle: SimVehicle,
  maintenance: SimMaintenance,
  lang: Lang,
): MaintenanceRecord {
  const fuelGroup = tr(MAINTENANCE_GROUPS.FUEL, lang);
  const maintGroup = tr(MAINTENANCE_GROUPS.MAINTENANCE, lang);
  const end = lastDataAt(world, vehicle);
  const trips = world.trips(vehicle.id);
  const capacity = tankCapacity(vehicle);
  const avgL100 = trips.length > 0 ? trips.reduce((s, t) => s + t.avgConsumptionL100, 0) / trips.length : 6;
  const autonomyFromTank = avgL100 > 0 ? ((vehicle.fuelLevelPct / 100) * capacity * 100) / avgL100 : 0;
  // Telemetry carries the autonomy in some seconds only: the latest of the window.
  let autonomy = autonomyFromTank;
  for (let k = 60; k >= 1; k--) {
    const reading = world.telemetryAt(vehicle.id, secondAt(end, k))?.fuel?.autonomy;
    if (reading !== undefined) {
      autonomy = reading;
      break;
    }
  }

  const fuelValues: Record<FuelIndicator, number> = {
    fuelTankAlerte: vehicle.fuelLevelPct < LOW_FUEL_PCT ? 1 : 0,
    residualAutonomy: Math.round(autonomy),
    fuelTotalConsumption: round(
      trips.reduce((s, t) => s + t.fuelConsumptionL, 0),
      1,
    ),
    fuelLevel: round(vehicle.fuelLevelPct, 1),
    fuelTankCapacity: capacity,
    instFuelConsumption10: 0,
    instFuelConsumption20: 0,
    instFuelConsumption30: 0,
    instFuelConsumption40: 0,
    instFuelConsumption50: 0,
    instFuelConsumption60: 0,
  };
  for (const s of INST_SECONDS) {
    // Telemetry states liters per kilometer; the record shows l/100 km.
    const perKm = world.telemetryAt(vehicle.id, secondAt(end, s))?.fuel?.consumption ?? 0;
    fuelValues[`instFuelConsumption${s}`] = round(perKm * 100, 1);
  }
  const fuel: Record<string, number | GroupLabel> = {};
  for (const [key, value] of Object.entries(fuelValues) as [FuelIndicator, number][]) {
    fuel[key] = value;
    fuel[`${key}Label`] = { label: tr(FUEL_LABELS[key], lang), groupLabel: fuelGroup };
  }

  const maintValues: Record<MaintenanceIndicator, number | string> = {
    totMileage: round(vehicle.odometerKm, 1),
    indDayBeforeMaint: dueIndicator(maintenance.days, DUE_SOON_DAYS),
    indMileageBeforeMaint: dueIndicator(maintenance.mileage, DUE_SOON_KM),
    dayBeforeMaint: Math.round(maintenance.days),
    mileageBeforeMaint: Math.round(maintenance.mileage),
  };
  const maint: Record<string, number | string | GroupLabel> = {};
  for (const [key, value] of Object.entries(maintValues) as [MaintenanceIndicator, number | string][]) {
    maint[key] = value;
    maint[`${key}Label`] = { label: tr(MAINTENANCE_LABELS[key], lang), groupLabel: maintGroup };
  }

  return {
    fuel,
    maintenance: maint,
    vin: vehicle.vin,
    lastUpdate: formatStamp(Math.max(maintenance.updatedAt, vehicle.updatedAt)),
    contract: vehicle.contract,
  };
}
