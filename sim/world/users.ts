/**
 * The population: users (1 to 3 vehicles of one brand each) and their vehicles, drawn from the
 * seed. Only identities and starting values are drawn here; the history of a vehicle is generated
 * on first use (history.ts).
 */
import { CITIES, FIRST_NAMES, LAST_NAMES, MODELS } from './catalog';
import { offset, roundPoint } from './geo';
import { hash32, opaqueId, Rng } from './prng';
import { DAY, KIND, notFound, type Outcome, ok, type VehicleState, type WorldState } from './state';
import { round } from './trip';
import type { BrandCode, SimUser, SimVehicle } from './types';

/** VIN characters: digits and capitals without I, O and Q. */
const VIN_CHARS = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789';

function ascii(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

/** Draws the users and vehicles of the world anew (same seed, same population). */
export function generatePopulation(w: WorldState): void {
  w.users = [];
  w.usersById.clear();
  w.states = [];
  w.byVehicleId.clear();
  w.byVin.clear();
  w.byContract.clear();
  w.tripIndex.clear();
  w.allLoaded = false;
  const rng = new Rng(hash32(w.seed, 0xa11));
  const start = w.clock.startTime;
  let userIndex = 0;
  while (w.states.length < w.vehicleCount) {
    const brand: BrandCode = rng.chance(0.5) ? 'C' : 'P';
    const first = rng.pick(FIRST_NAMES);
    const last = rng.pick(LAST_NAMES);
    const owned = Math.min(rng.int(1, 3), w.vehicleCount - w.states.length);
    const user: SimUser = {
      id: opaqueId('u', w.seed, KIND.user, userIndex),
      email: `${ascii(first)}.${ascii(last)}${userIndex + 1}@example.com`,
      firstName: first,
      lastName: last,
      brand,
      createdAt: start - rng.int(400, 1500) * DAY - rng.int(0, DAY / 1000) * 1000,
      updatedAt: 0,
      vehicleIds: [],
      revoked: false,
    };
    user.updatedAt = user.createdAt;
    for (let k = 0; k < owned; k++) {
      const state = generateVehicle(w, rng, user, w.states.length);
      user.vehicleIds.push(state.vehicle.id);
      w.states.push(state);
      w.byVehicleId.set(state.vehicle.id, state);
      w.byVin.set(state.vehicle.vin, state);
      w.byContract.set(state.vehicle.contract, state);
    }
    w.users.push(user);
    w.usersById.set(user.id, user);
    userIndex++;
  }
  w.nextActivityAt = w.activity ? start : Number.POSITIVE_INFINITY;
}

function generateVehicle(w: WorldState, rng: Rng, user: SimUser, index: number): VehicleState {
  const spec = rng.pick(MODELS[user.brand]);
  const engine = rng.pick(spec.engines);
  let vin = '';
  do {
    vin = `V${user.brand}${rng.int(1, 9)}`;
    for (let i = 0; i < 14; i++) vin += VIN_CHARS[rng.int(0, VIN_CHARS.length - 1)];
  } while (w.byVin.has(vin));
  let contract = '';
  do {
    contract = String(rng.int(100_000_000, 999_999_999));
  } while (w.byContract.has(contract));
  const city = rng.pick(CITIES);
  const home = roundPoint(
    offset({ lon: city[0], lat: city[1], alt: city[2] }, rng.range(0, 8), rng.range(0, 360)),
  );
  const createdAt = Math.max(user.createdAt, w.clock.startTime - rng.int(60, 1200) * DAY);
  const vehicle: SimVehicle = {
    id: opaqueId('v', w.seed, KIND.vehicle, index),
    vin,
    contract,
    brand: user.brand,
    userId: user.id,
    model: spec.model,
    subModel: rng.pick(spec.subModels),
    engine: engine.engine,
    gearbox: engine.gearbox,
    energy: engine.energy,
    createdAt,
    updatedAt: createdAt,
    odometerKm: 0,
    fuelLevelPct: 0,
    position: home,
    heading: 0,
    positionAt: createdAt,
    // The first vehicle always shares its position, so a first try of lastPosition works.
    geolocationAllowed: index === 0 || rng.chance(0.9),
    referenceFuelPrice: round(rng.range(1.65, 1.95), 3),
  };
  const odometer = rng.int(3_000, 120_000);
  return {
    index,
    vehicle,
    spec,
    home,
    baseOdometerKm: odometer,
    baseFuelPct: rng.int(45, 95),
    loaded: false,
    seq: 0,
    trips: [],
    alerts: [],
    collisions: [],
    events: [],
    fuelLedger: [],
    maintenance: { dueAt: 0, dueOdometerKm: 0, createdAt, setAt: createdAt },
    services: [],
    map: { vin, installedVersion: '', availableVersion: '', releasedAt: 0, sizeMb: 0 },
  };
}

/** Revokes a user's consent: refresh grants fail from now on, until the user signs in again. */
export function revokeUser(w: WorldState, userId: string): Outcome<SimUser> {
  const u = w.usersById.get(userId);
  if (!u) return notFound('user', userId);
  u.revoked = true;
  u.updatedAt = w.clock.now();
  return ok(u);
}

/**
 * Takes a vehicle out of its user's list (GET /vehicles no longer has it, as when the owner
 * removes it from their account) or, with `listed`, puts it back at the end.
 */
export function setVehicleListed(
  w: WorldState,
  userId: string,
  vehicleId: string,
  listed: boolean,
): Outcome<SimUser> {
  const u = w.usersById.get(userId);
  if (!u) return notFound('user', userId);
  const v = w.byVehicleId.get(vehicleId);
  if (!v || v.vehicle.userId !== userId) return notFound('vehicle of this user', vehicleId);
  const at = u.vehicleIds.indexOf(vehicleId);
  if (!listed && at >= 0) u.vehicleIds.splice(at, 1);
  if (listed && at < 0) u.vehicleIds.push(vehicleId);
  u.updatedAt = w.clock.now();
  return ok(u);
}
