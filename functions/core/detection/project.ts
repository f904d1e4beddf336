import type { EcoScore, Position } from '../api/model';

/**
 * Projections of model records onto the published event shapes. The event schemas are closed
 * (`additionalProperties: false`) and the API client may add optional fields to its model, so
 * the engine copies only the fields the schemas know, and only finite numbers.
 */
// Stryker disable next-line ConditionalExpression: Number.isFinite is false for every non-number (it does not coerce), so the typeof test forced true changes nothing
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export const toPosition = (p: Position | undefined): Position | undefined => {
  if (p === undefined || num(p.lon) === undefined || num(p.lat) === undefined) return undefined;
  const out: { -readonly [K in keyof Position]: Position[K] } = { lon: p.lon, lat: p.lat };
  if (num(p.alt) !== undefined) out.alt = p.alt;
  if (num(p.heading) !== undefined) out.heading = p.heading;
  if (str(p.collectedAt) !== undefined) out.collectedAt = p.collectedAt;
  return out;
};

export const toScores = (scores: Readonly<Record<string, EcoScore>>): Record<string, EcoScore> => {
  const out: Record<string, EcoScore> = {};
  for (const [name, s] of Object.entries(scores)) {
    if (s === null || typeof s !== 'object' || num(s.score) === undefined) continue;
    const score: { -readonly [K in keyof EcoScore]: EcoScore[K] } = { score: s.score };
    for (const k of ['evaluation', 'advice', 'category', 'label'] as const) {
      const v = str(s[k]);
      if (v !== undefined) score[k] = v;
    }
    out[name] = score;
  }
  return out;
};
