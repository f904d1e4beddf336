/**
 * The kinds of change the capacity model (./model.ts) predicts and an operator sets freshness
 * targets on: their own module, imported by the API's contract without the model.
 */

/** The kinds of change an operator sets freshness targets on. */
export const freshnessKinds = [
  'alerts',
  'trips',
  'collisions',
  'fuel',
  'maintenance',
  'services',
  'map',
] as const;
export type FreshnessKind = (typeof freshnessKinds)[number];
