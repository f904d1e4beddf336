/**
 * Localized texts of the v1 records: alert messages and advice, eco-driving labels, maintenance
 * labels, and the referential groups. French for `fr_*` locales, English otherwise.
 * The world's own free-text strings are single-language, so the v1 area renders its own.
 */
import { ECO_DETAILED } from '../world/catalog';
import type { Severity } from '../world/types';
import alertMessages from './alert-messages.json' with { type: 'json' };
import type { Lang } from './params';

type Text = readonly [en: string, fr: string];

export function tr(text: Text, lang: Lang): string {
  return lang === 'fr' ? text[1] : text[0];
}

const GROUPS = ['ENGINE', 'SAFETY', 'OPENINGS', 'LIGHTING', 'TYRES', 'AIDS', 'ENERGY', 'COMFORT'] as const;
export type AlertGroup = (typeof GROUPS)[number];

export const ALERT_GROUPS: Readonly<Record<AlertGroup | 'VEHICLE', Text>> = {
  ENGINE: ['Engine and fuel', 'Moteur et carburant'],
  SAFETY: ['Braking, steering and safety', 'Freinage, direction et sécurité'],
  OPENINGS: ['Doors and openings', 'Ouvrants'],
  LIGHTING: ['Lighting', 'Éclairage'],
  TYRES: ['Tyres and wheels', 'Pneumatiques et roues'],
  AIDS: ['Driving aids', 'Aides à la conduite'],
  ENERGY: ['Battery and electrical system', 'Batterie et circuit électrique'],
  COMFORT: ['Comfort and equipment', 'Confort et équipements'],
  VEHICLE: ['Vehicle', 'Véhicule'],
};

/**
 * One entry per code of the shared alert-messages reference: English, French, group. The table is
 * data (alert-messages.json); a code it does not know gets a humanized message and the `VEHICLE` group.
 */
export const ALERT_MESSAGES: Readonly<Record<string, readonly [string, string, AlertGroup]>> =
  Object.fromEntries(Object.entries(alertMessages).map(([code, entry]) => [code, checkedEntry(code, entry)]));

/** An entry of the table as `[English, French, group]`; a bad edit fails at load, naming the code. */
export function checkedEntry(code: string, entry: readonly string[]): readonly [string, string, AlertGroup] {
  const [en, fr, group] = entry;
  const known = (GROUPS as readonly string[]).includes(group ?? '');
  if (!en || !fr || !known)
    throw new TypeError(`alert-messages.json: ${code}: expected [English, French, group]`);
  return [en, fr, group as AlertGroup];
}

/** `fuelLevelAlarm` → `Fuel level alarm`: for a code the table does not know. */
function humanize(code: string): string {
  const words = code.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function alertMessage(code: string, lang: Lang): string {
  const entry = ALERT_MESSAGES[code];
  return entry ? tr([entry[0], entry[1]], lang) : humanize(code);
}

export function alertGroup(code: string): AlertGroup | 'VEHICLE' {
  return ALERT_MESSAGES[code]?.[2] ?? 'VEHICLE';
}

const ADVICE: Readonly<Record<Severity, Text>> = {
  high: [
    'Stop the vehicle as soon as it is safe to do so and contact your dealer',
    'Arrêtez le véhicule dès que les conditions de sécurité le permettent et contactez votre concessionnaire',
  ],
  medium: [
    'Have the vehicle checked by your dealer soon',
    'Faites vérifier le véhicule rapidement par votre concessionnaire',
  ],
  low: ['Have it checked at the next service', 'Faites-le vérifier lors du prochain entretien'],
};

export function alertAdvice(severity: Severity, lang: Lang): string {
  return tr(ADVICE[severity], lang);
}

// ---------------------------------------------------------------- eco-driving

export type EcoGlobalCode = 'drivingMark' | 'drivingAttitude' | 'roadProfile';
export type EcoDetailedCode = (typeof ECO_DETAILED)[number];
export type EcoCode = EcoGlobalCode | EcoDetailedCode;

export const ECO_GLOBAL_CODES: readonly EcoGlobalCode[] = ['drivingMark', 'drivingAttitude', 'roadProfile'];
export const ECO_DETAILED_CODES: readonly EcoDetailedCode[] = ECO_DETAILED;

/** Level 1 good, 2 average, 3 to improve. */
export type EcoLevel = 1 | 2 | 3;
export const ECO_LEVELS: readonly EcoLevel[] = [1, 2, 3];

/** Scores are on the world's 0–100 scale. */
export function ecoLevel(score: number): EcoLevel {
  if (score >= 70) return 1;
  if (score >= 40) return 2;
  return 3;
}

const ECO_NAMES: Readonly<Record<EcoCode, Text>> = {
  drivingMark: ['Driving mark', 'Note de conduite'],
  drivingAttitude: ['Driving attitude', 'Attitude de conduite'],
  roadProfile: ['Road profile', 'Profil de route'],
  acceleration: ['Acceleration', 'Accélération'],
  braking: ['Braking', 'Freinage'],
  engineSpeed: ['Engine speed', 'Régime moteur'],
  stopAndStart: ['Stop & Start', 'Stop & Start'],
  speed: ['Speed', 'Vitesse'],
  slope: ['Slope', 'Dénivelé'],
  coldTrips: ['Cold trips', 'Trajets à froid'],
};

const ECO_ADVICE: Readonly<Record<EcoCode, Text>> = {
  drivingMark: ['Anticipate and drive smoothly', 'Anticipez et conduisez en souplesse'],
  drivingAttitude: [
    'Keep a steady pace and avoid sudden actions',
    'Gardez une allure régulière et évitez les à-coups',
  ],
  roadProfile: [
    'Prefer fluid routes when you can',
    'Privilégiez les itinéraires fluides lorsque c’est possible',
  ],
  acceleration: ['Accelerate gently', 'Accélérez progressivement'],
  braking: ['Anticipate to brake less', 'Anticipez pour moins freiner'],
  engineSpeed: [
    'Shift up earlier to keep the engine speed low',
    'Passez les rapports plus tôt pour garder un régime bas',
  ],
  stopAndStart: ['Leave Stop & Start on', 'Laissez le Stop & Start activé'],
  speed: ['Lower your cruising speed', 'Réduisez votre vitesse de croisière'],
  slope: ['Use engine braking on descents', 'Utilisez le frein moteur dans les descentes'],
  coldTrips: ['Group short trips with a cold engine', 'Regroupez les trajets courts moteur froid'],
};

const ECO_EVALUATIONS: Readonly<Record<EcoLevel, Text>> = {
  1: ['Good', 'Bien'],
  2: ['Average', 'Moyen'],
  3: ['To improve', 'À améliorer'],
};
const ECO_KEEP_UP: Text = ['Keep it up', 'Continuez ainsi'];

export const ECO_CATEGORIES: Readonly<Record<'GLOBAL' | 'DETAILED', Text>> = {
  GLOBAL: ['Global evaluation', 'Évaluation globale'],
  DETAILED: ['Detailed evaluation', 'Évaluation détaillée'],
};

export function ecoCategoryOf(code: EcoCode): 'GLOBAL' | 'DETAILED' {
  return (ECO_GLOBAL_CODES as readonly string[]).includes(code) ? 'GLOBAL' : 'DETAILED';
}

export interface EcoTexts {
  readonly label: string;
  readonly evaluation: string;
  readonly advice: string;
  readonly category: string;
}

export function ecoTexts(code: EcoCode, level: EcoLevel, lang: Lang): EcoTexts {
  return {
    label: tr(ECO_NAMES[code], lang),
    evaluation: tr(ECO_EVALUATIONS[level], lang),
    advice: tr(level === 1 ? ECO_KEEP_UP : ECO_ADVICE[code], lang),
    category: tr(ECO_CATEGORIES[ecoCategoryOf(code)], lang),
  };
}

// ---------------------------------------------------------------- maintenance

export type FuelIndicator =
  | 'fuelTankAlerte'
  | 'residualAutonomy'
  | 'fuelTotalConsumption'
  | 'fuelLevel'
  | 'fuelTankCapacity'
  | 'instFuelConsumption10'
  | 'instFuelConsumption20'
  | 'instFuelConsumption30'
  | 'instFuelConsumption40'
  | 'instFuelConsumption50'
  | 'instFuelConsumption60';
export type MaintenanceIndicator =
  | 'totMileage'
  | 'indDayBeforeMaint'
  | 'indMileageBeforeMaint'
  | 'dayBeforeMaint'
  | 'mileageBeforeMaint';

export const MAINTENANCE_GROUPS: Readonly<Record<'FUEL' | 'MAINTENANCE', Text>> = {
  FUEL: ['Fuel', 'Carburant'],
  MAINTENANCE: ['Maintenance', 'Entretien'],
};

const inst = (s: number): Text => [
  `Instantaneous fuel consumption at second ${s}`,
  `Consommation instantanée à la seconde ${s}`,
];

export const FUEL_LABELS: Readonly<Record<FuelIndicator, Text>> = {
  fuelTankAlerte: ['Low fuel warning', 'Alerte de réserve de carburant'],
  residualAutonomy: ['Remaining range (km)', 'Autonomie restante (km)'],
  fuelTotalConsumption: ['Total fuel consumption (l)', 'Consommation totale de carburant (l)'],
  fuelLevel: ['Fuel level (%)', 'Niveau de carburant (%)'],
  fuelTankCapacity: ['Fuel tank capacity (l)', 'Capacité du réservoir (l)'],
  instFuelConsumption10: inst(10),
  instFuelConsumption20: inst(20),
  instFuelConsumption30: inst(30),
  instFuelConsumption40: inst(40),
  instFuelConsumption50: inst(50),
  instFuelConsumption60: inst(60),
};

export const MAINTENANCE_LABELS: Readonly<Record<MaintenanceIndicator, Text>> = {
  totMileage: ['Total mileage (km)', 'Kilométrage total (km)'],
  indDayBeforeMaint: ['Maintenance due by date', 'Échéance d’entretien par date'],
  indMileageBeforeMaint: ['Maintenance due by mileage', 'Échéance d’entretien par kilométrage'],
  dayBeforeMaint: ['Days before maintenance', 'Jours avant entretien'],
  mileageBeforeMaint: ['Kilometers before maintenance', 'Kilomètres avant entretien'],
};
