import type { IsoDate, MapUpdateInfo, ServiceEligibility } from '../api/model';
import type { Observation } from './observations';
import type { MaintenanceState } from './state';
import type { EventSource, Work } from './work';

// ---------------------------------------------------------------------------------------------
// Maintenance countdown (the API gives days and km left, negative = overdue).

type Level = 'due' | 'overdue';

/**
 * Whether a maintenance answer predates the vehicle's last trip and came soon after it: its reading
 * (`updatedAt` or `createdAt`, v1 `lastUpdate`) is older than the trip's end, and it was fetched
 * less than `maintenanceSettleMs` after that end. Such an answer is applied (an older reading moves
 * nothing) but is not the read after the trip, so maintenance is read again (`hints`).
 */
export const readingBeforeTrip = (w: Work, o: Observation): boolean => {
  const tripAt = w.s.lastTripAt;
  if (tripAt === undefined || (o.source !== 'v2.maintenance' && o.source !== 'v1.maintenance')) return false;
  if (Date.parse(o.fetchedAt) - Date.parse(tripAt) >= w.config.maintenanceSettleMs) return false;
  const item: unknown = o.items[0];
  if (typeof item !== 'object' || item === null) return false;
  const m = item as { updatedAt?: unknown; createdAt?: unknown; lastUpdate?: unknown };
  const at = o.source === 'v2.maintenance' ? (m.updatedAt ?? m.createdAt) : m.lastUpdate;
  return typeof at === 'string' && at < tripAt;
};

/**
 * Applies one maintenance reading. Levels only move forward within a cycle — due, then overdue,
 * each emitted at most once — so a countdown hovering at a threshold never flaps. Only a jump back
 * up by at least `maintenanceResetJump` (a service was done) starts a new cycle (README).
 */
export const applyMaintenance = (
  w: Work,
  reading: { days?: number; mileageKm?: number; updatedAt?: IsoDate },
  obs: Observation,
  source: EventSource,
): void => {
  const prev = w.s.maintenance;
  if (reading.days === undefined && reading.mileageKm === undefined) return;
  if (!Number.isFinite(reading.days ?? 0) || !Number.isFinite(reading.mileageKm ?? 0)) return;
  const days = Math.round(reading.days ?? prev?.days ?? Number.MAX_SAFE_INTEGER);
  const mileageKm = Math.round(reading.mileageKm ?? prev?.mileageKm ?? Number.MAX_SAFE_INTEGER);
  if (prev !== undefined) {
    // Stale: an older record, or (without record times) an older read, never moves state back.
    if (
      reading.updatedAt !== undefined &&
      prev.updatedAt !== undefined &&
      reading.updatedAt !== prev.updatedAt
    ) {
      // Stryker disable next-line EqualityOperator: the two times differ in this branch
      if (reading.updatedAt < prev.updatedAt) return;
    } else if (obs.fetchedAt < prev.seenAt) return;
    if (prev.days === days && prev.mileageKm === mileageKm) return;
  }
  const { maintenanceDue: due, maintenanceResetJump: jump } = w.config;
  const occurredAt = reading.updatedAt ?? obs.fetchedAt;
  let cycle = prev?.cycle ?? 0;
  let emitted: Level[] = prev?.emitted ?? [];
  if (prev !== undefined && (days - prev.days >= jump.days || mileageKm - prev.mileageKm >= jump.mileageKm)) {
    cycle += 1;
    emitted = [];
    w.emit('vehicle.maintenance.reset', `cycle:${cycle}`, 'reset', occurredAt, source, {
      days,
      mileageKm,
      cycle,
      previousDays: prev.days,
      previousMileageKm: prev.mileageKm,
    });
  }
  const initial = prev === undefined && w.isHistory(undefined, obs.source);
  const tell = !initial || w.emitsInitialConditions;
  const dueCrossed = [
    ...(days <= due.days ? (['days'] as const) : []),
    ...(mileageKm <= due.mileageKm ? (['mileage'] as const) : []),
  ];
  const overdueCrossed = [
    ...(days < 0 ? (['days'] as const) : []),
    ...(mileageKm < 0 ? (['mileage'] as const) : []),
  ];
  const next = [...emitted];
  if (dueCrossed.length > 0 && !emitted.includes('due')) {
    next.push('due');
    if (tell) {
      w.emit('vehicle.maintenance.due', `cycle:${cycle}`, 'due', occurredAt, source, {
        days,
        mileageKm,
        cycle,
        crossed: dueCrossed,
        thresholds: { days: due.days, mileageKm: due.mileageKm },
        initial,
      });
    }
  }
  if (overdueCrossed.length > 0 && !emitted.includes('overdue')) {
    next.push('overdue');
    if (tell) {
      w.emit('vehicle.maintenance.overdue', `cycle:${cycle}`, 'overdue', occurredAt, source, {
        days,
        mileageKm,
        cycle,
        crossed: overdueCrossed,
        initial,
      });
    }
  }
  const state: MaintenanceState = { days, mileageKm, cycle, emitted: next, seenAt: obs.fetchedAt };
  const updatedAt = reading.updatedAt ?? prev?.updatedAt;
  if (updatedAt !== undefined) state.updatedAt = updatedAt;
  w.setMaintenance(state);
};

// ---------------------------------------------------------------------------------------------
// Services eligibility (`code`, `eligible` per service): the set of eligible codes.

export const applyServices = (
  w: Work,
  obs: Observation,
  items: readonly ServiceEligibility[],
  source: EventSource,
) => {
  // A partial list would "remove" every code it missed.
  if (!obs.complete) return;
  const prev = w.s.services;
  if (prev !== undefined && obs.fetchedAt < prev.seenAt) return;
  const eligible = [...new Set(items.filter((i) => i.eligible && i.code !== '').map((i) => i.code))].sort();
  const same = (codes: readonly string[]) =>
    codes.length === eligible.length && codes.every((c, i) => c === eligible[i]);
  if (prev !== undefined && same(prev.eligible)) {
    // The change read once did not hold: the answer that showed it was stale or missed a code.
    if (prev.pending !== undefined)
      w.setServices({ eligible: prev.eligible, revision: prev.revision, seenAt: prev.seenAt });
    return;
  }
  // Services answers carry no record time: a change is told once a second read, a cycle later,
  // shows it too. Until then it is pending, told from when it was first read.
  let changedAt = obs.fetchedAt;
  if (prev !== undefined && w.config.confirmAbsences) {
    const pending = prev.pending;
    if (pending === undefined || !same(pending.eligible)) {
      w.setServices({ ...prev, pending: { eligible, seenAt: obs.fetchedAt } });
      return;
    }
    if (Date.parse(obs.fetchedAt) - Date.parse(pending.seenAt) < w.config.absenceConfirmMs) return;
    changedAt = pending.seenAt;
  }
  const revision = (prev?.revision ?? 0) + 1;
  w.setServices({ eligible, revision, seenAt: obs.fetchedAt });
  const before = new Set(prev?.eligible ?? []);
  const after = new Set(eligible);
  // Stryker disable next-line ConditionalExpression: a stored list means its one source was read, so isHistory(undefined) is false then
  if (prev === undefined && w.isHistory(undefined, obs.source)) return;
  w.emit('vehicle.services.changed', `revision:${revision}`, 'changed', changedAt, source, {
    eligible,
    added: eligible.filter((c) => !before.has(c)),
    removed: [...before].filter((c) => !after.has(c)).sort(),
    services: [...items]
      .sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0))
      .map((i) =>
        typeof i.shortLabel === 'string'
          ? { code: i.code, shortLabel: i.shortLabel, eligible: i.eligible === true }
          : { code: i.code, eligible: i.eligible === true },
      ),
  });
};

// ---------------------------------------------------------------------------------------------
// Map update (area C): a new available version that differs from the installed one.

const MAX_ANNOUNCED = 20;

export const applyMap = (w: Work, obs: Observation, info: MapUpdateInfo, source: EventSource): void => {
  const prev = w.s.map;
  if (info.availableVersion === '') return;
  if (prev !== undefined && obs.fetchedAt < prev.seenAt) return;
  if (
    prev !== undefined &&
    prev.available === info.availableVersion &&
    prev.installed === info.installedVersion
  )
    return;
  const differs =
    info.installedVersion === undefined
      ? info.updateAvailable
      : info.installedVersion !== info.availableVersion;
  const announced = prev?.announced ?? [];
  const news = differs && !announced.includes(info.availableVersion);
  const next: NonNullable<typeof prev> = {
    available: info.availableVersion,
    announced: news ? [...announced, info.availableVersion].slice(-MAX_ANNOUNCED) : announced,
    seenAt: obs.fetchedAt,
  };
  if (info.installedVersion !== undefined) next.installed = info.installedVersion;
  w.setMap(next);
  if (!news) return;
  // Stryker disable next-line ConditionalExpression: a stored map means its one source was read, so isHistory(undefined) is false then
  const initial = prev === undefined && w.isHistory(undefined, obs.source);
  if (initial && !w.emitsInitialConditions) return;
  w.emit(
    'vehicle.map_update.available',
    `version:${info.availableVersion}`,
    'available',
    info.releasedAt ?? obs.fetchedAt,
    source,
    {
      vin: info.vin,
      availableVersion: info.availableVersion,
      installedVersion: info.installedVersion,
      previousAvailableVersion: prev?.available,
      releasedAt: info.releasedAt,
      initial,
    },
  );
};
