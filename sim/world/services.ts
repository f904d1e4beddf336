/** Service eligibility and map versions of a vehicle. */
import { invalid, type Outcome, ok, type VehicleState, type WorldState } from './state';
import type { SimMapInfo, SimServiceEligibility } from './types';

/** Changes the eligibility of some services; an unknown code changes nothing and names `services`. */
export function setServices(
  s: VehicleState,
  updates: readonly { code: string; eligible: boolean }[],
): Outcome<readonly SimServiceEligibility[]> {
  for (const u of updates) {
    if (!s.services.some((x) => x.code === u.code)) {
      return invalid('services', `unknown service code '${u.code}'`);
    }
  }
  for (const u of updates) {
    const entry = s.services.find((x) => x.code === u.code);
    if (entry) entry.eligible = u.eligible;
  }
  return ok(s.services);
}

/** Publishes a new map version for the vehicle: `version`, or the world month (`2026.01`). */
export function releaseMap(w: WorldState, s: VehicleState, version?: string): SimMapInfo {
  const now = w.clock.now();
  const d = new Date(now);
  const next = version ?? `${d.getUTCFullYear()}.${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
  if (next === s.map.availableVersion) {
    // A second release in the same month gets a patch number.
    const m = /^(.*?)(?:\.(\d+))?$/.exec(s.map.availableVersion);
    s.map.availableVersion = `${next}.${Number(m?.[2] ?? 0) + 1}`;
  } else s.map.availableVersion = next;
  s.map.releasedAt = now;
  return s.map;
}
