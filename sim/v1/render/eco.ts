import type { EcoScore, SimTrip, SimVehicle } from '../../world/types';
import { formatStamp, round } from '../format';
import {
  ECO_DETAILED_CODES,
  ECO_GLOBAL_CODES,
  type EcoCode,
  type EcoDetailedCode,
  type EcoGlobalCode,
  ecoLevel,
  ecoTexts,
} from '../labels';
import type { Lang } from '../params';

export interface EcoLabel {
  evaluation: string;
  advice: string;
  category: string;
  label: string;
}

type Scores = Record<EcoCode, number>;

/** World eco-driving (the v2 global and detailed entries) → v1 marks: trend → drivingMark, style → attitude, road → profile. */
function tripScores(trip: SimTrip): Scores {
  const g = trip.ecodriving.global;
  const d = trip.ecodriving.detailed;
  const score = (e: EcoScore) => e.score;
  return {
    drivingMark: score(g.trend),
    drivingAttitude: score(g.style),
    roadProfile: score(g.road),
    acceleration: score(d.acceleration),
    braking: score(d.braking),
    engineSpeed: score(d.engineSpeed),
    stopAndStart: score(d.stopAndStart),
    speed: score(d.speed),
    slope: score(d.slope),
    coldTrips: score(d.coldTrips),
  };
}

/** Duration-weighted mean of the trips' scores (a 2-hour trip weighs more than a 5-minute one). */
function meanScores(trips: readonly SimTrip[]): Scores {
  const codes = [...ECO_GLOBAL_CODES, ...ECO_DETAILED_CODES];
  const sums = Object.fromEntries(codes.map((c) => [c, 0])) as Scores;
  let weights = 0;
  for (const trip of trips) {
    const w = Math.max(1, trip.durationS);
    const s = tripScores(trip);
    for (const c of codes) sums[c] += s[c] * w;
    weights += w;
  }
  for (const c of codes) sums[c] = weights > 0 ? sums[c] / weights : 0;
  return sums;
}

function label(code: EcoCode, score: number, lang: Lang): EcoLabel {
  const t = ecoTexts(code, ecoLevel(score), lang);
  return { evaluation: t.evaluation, advice: t.advice, category: t.category, label: t.label };
}

export type GlobalEvaluation = { duration?: number; dateAggr?: number } & {
  [K in EcoGlobalCode]?: number;
} & { [K in `${EcoGlobalCode}Label`]?: EcoLabel };
export type DetailedEvaluation = { [K in EcoDetailedCode]?: number } & {
  [K in `${EcoDetailedCode}Label`]?: EcoLabel;
};

export interface EcoEvaluation {
  tripId?: number;
  globalEvaluation: GlobalEvaluation;
  detailedEvaluation: DetailedEvaluation;
  vin: string;
  lastUpdate: string;
  contract: string;
}

function evaluation(
  vehicle: SimVehicle,
  scores: Scores,
  lang: Lang,
  lastUpdate: number,
  head: { tripId?: number; duration?: number; dateAggr?: number },
): EcoEvaluation {
  const globalEvaluation: Record<string, unknown> = {};
  if (head.duration !== undefined) globalEvaluation.duration = head.duration;
  if (head.dateAggr !== undefined) globalEvaluation.dateAggr = head.dateAggr;
  for (const code of ECO_GLOBAL_CODES) {
    globalEvaluation[code] = round(scores[code], 1);
    globalEvaluation[`${code}Label`] = label(code, scores[code], lang);
  }
  const detailedEvaluation: Record<string, unknown> = {};
  for (const code of ECO_DETAILED_CODES) {
    detailedEvaluation[code] = round(scores[code], 1);
    detailedEvaluation[`${code}Label`] = label(code, scores[code], lang);
  }
  return {
    tripId: head.tripId,
    globalEvaluation: globalEvaluation as GlobalEvaluation,
    detailedEvaluation: detailedEvaluation as DetailedEvaluation,
    vin: vehicle.vin,
    lastUpdate: formatStamp(lastUpdate),
    contract: vehicle.contract,
  };
}

function latestUpdate(trips: readonly SimTrip[]): number {
  return Math.max(...trips.map((t) => t.updatedAt));
}

/** Per-trip variants (pertrip, lasttrip, daytrips): `tripId` and `duration` (seconds). */
export function renderTripEvaluation(vehicle: SimVehicle, trip: SimTrip, lang: Lang): EcoEvaluation {
  return evaluation(vehicle, tripScores(trip), lang, trip.updatedAt, {
    tripId: trip.v1Id,
    duration: trip.durationS,
  });
}

/** Evaluation over all trips (evaluation list and get): no duration, no tripId. */
export function renderOverallEvaluation(
  vehicle: SimVehicle,
  trips: readonly SimTrip[],
  lang: Lang,
): EcoEvaluation {
  return evaluation(vehicle, meanScores(trips), lang, latestUpdate(trips), {});
}

/** Day (`dateAggr` yyyyMMdd) or month (`dateAggr` yyyyMM) aggregate: `duration` is the summed seconds. */
export function renderAggregateEvaluation(
  vehicle: SimVehicle,
  trips: readonly SimTrip[],
  dateAggr: number,
  lang: Lang,
): EcoEvaluation {
  const duration = trips.reduce((sum, t) => sum + t.durationS, 0);
  return evaluation(vehicle, meanScores(trips), lang, latestUpdate(trips), { duration, dateAggr });
}
