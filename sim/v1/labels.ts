/**
 * Localized texts of the v1 records: alert messages and advice, eco-driving labels, maintenance
 * labels, and the referential groups. French for `fr_*` locales, English otherwise (spec 4.4).
 * The world's own free-text strings are single-language, so the v1 area renders its own.
 */
import type { Severity } from '../world/types';
import type { Lang } from './params';

type Text = readonly [en: string, fr: string];

export function tr(text: Text, lang: Lang): string {
  return lang === 'fr' ? text[1] : text[0];
}

export type AlertGroup =
  | 'ENGINE'
  | 'SAFETY'
  | 'OPENINGS'
  | 'LIGHTING'
  | 'TYRES'
  | 'AIDS'
  | 'ENERGY'
  | 'COMFORT';

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

/** One entry per code of shared/reference/alert-messages.json: English, French, group. */
export const ALERT_MESSAGES: Readonly<Record<string, readonly [string, string, AlertGroup]>> = {
  alertOilPressure: ['Oil pressure too low', "Pression d'huile insuffisante", 'ENGINE'],
  alertCoolantTemp: [
    'Coolant temperature too high',
    'Température du liquide de refroidissement trop élevée',
    'ENGINE',
  ],
  chargingSystemFault: ['Charging system fault', 'Défaut du circuit de charge', 'ENERGY'],
  alertBrakeFluid: ['Brake fluid level too low', 'Niveau de liquide de frein insuffisant', 'SAFETY'],
  steeringFault: ['Steering fault', 'Défaut de direction', 'SAFETY'],
  alertCoolantLevel: ['Coolant level too low', 'Niveau de liquide de refroidissement insuffisant', 'ENGINE'],
  laneDepartureWarningSystemFault: [
    'Lane departure warning system fault',
    "Défaut de l'alerte de franchissement de ligne",
    'AIDS',
  ],
  frontLeftDoorOpenHighSpeed: [
    'Front left door open while driving',
    'Porte avant gauche ouverte en roulant',
    'OPENINGS',
  ],
  frontRightDoorOpenHighSpeed: [
    'Front right door open while driving',
    'Porte avant droite ouverte en roulant',
    'OPENINGS',
  ],
  rearLeftDoorOpenHighSpeed: [
    'Rear left door open while driving',
    'Porte arrière gauche ouverte en roulant',
    'OPENINGS',
  ],
  rearRightDoorOpenHighSpeed: [
    'Rear right door open while driving',
    'Porte arrière droite ouverte en roulant',
    'OPENINGS',
  ],
  trunkOpenHighSpeed: ['Boot open while driving', 'Coffre ouvert en roulant', 'OPENINGS'],
  trunkWindowOpen: ['Rear window open', 'Lunette arrière ouverte', 'OPENINGS'],
  espFault: ['ESP fault', "Défaut de l'ESP", 'SAFETY'],
  batteryLevelFault: ['Battery charge too low', 'Charge de la batterie insuffisante', 'ENERGY'],
  waterInGasoil: ['Water in diesel fuel', 'Présence d’eau dans le gazole', 'ENGINE'],
  padWearFault: ['Brake pads worn', 'Plaquettes de frein usées', 'SAFETY'],
  fuelLevelAlarm: ['Fuel level low', 'Niveau de carburant bas', 'ENGINE'],
  airbagOrSeatbeltFault: ['Airbag or seat belt fault', 'Défaut airbag ou ceinture de sécurité', 'SAFETY'],
  engineFault: ['Engine fault', 'Défaut moteur', 'ENGINE'],
  absFault: ['ABS fault', "Défaut de l'ABS", 'SAFETY'],
  riskOfParticleFilterBlockage: [
    'Risk of particle filter blockage',
    'Risque de colmatage du filtre à particules',
    'ENGINE',
  ],
  particleFilterAdditiveTooLow: [
    'Particle filter additive level too low',
    "Niveau d'additif du filtre à particules insuffisant",
    'ENGINE',
  ],
  suspensionFault: ['Suspension fault', 'Défaut de suspension', 'SAFETY'],
  preaheatingDeactivatedBatteryTooLow: [
    'Preheating deactivated: battery too low',
    'Préchauffage désactivé : batterie trop faible',
    'COMFORT',
  ],
  preaheatingDeactivatedFuelLevelTooLow: [
    'Preheating deactivated: fuel level too low',
    'Préchauffage désactivé : niveau de carburant trop bas',
    'COMFORT',
  ],
  checkTheBrakeLamp: ['Check the brake lamp', 'Vérifiez le feu stop', 'LIGHTING'],
  retractableRoofMechanismFault: [
    'Retractable roof mechanism fault',
    'Défaut du mécanisme de toit escamotable',
    'COMFORT',
  ],
  alertSteeringLock: ['Steering lock fault', "Défaut de l'antivol de direction", 'SAFETY'],
  electronicImmobiliserFault: [
    'Electronic immobiliser fault',
    "Défaut de l'antidémarrage électronique",
    'ENERGY',
  ],
  roofOperationImpossibleTemperatureTooHigh: [
    'Roof operation impossible: temperature too high',
    'Manœuvre du toit impossible : température trop élevée',
    'COMFORT',
  ],
  roofOperationImpossibleStartEngine: [
    'Roof operation impossible: start the engine',
    'Manœuvre du toit impossible : démarrez le moteur',
    'COMFORT',
  ],
  roofOperationImpossibleApplyParkingBreak: [
    'Roof operation impossible: apply the parking brake',
    'Manœuvre du toit impossible : serrez le frein de stationnement',
    'COMFORT',
  ],
  hybridSystemFault: ['Hybrid system fault', 'Défaut du système hybride', 'ENERGY'],
  automaticHeadlampFault: [
    'Automatic headlamp fault',
    "Défaut de l'allumage automatique des feux",
    'LIGHTING',
  ],
  hybridSystemFaultRepairedTheVehicle: [
    'Hybrid system fault: have the vehicle repaired',
    'Défaut du système hybride : faites réparer le véhicule',
    'ENERGY',
  ],
  washerLevelAlarm: ['Washer fluid level low', 'Niveau de lave-glace bas', 'COMFORT'],
  batteryKeyAlarm: ['Remote key battery low', 'Pile de la télécommande usée', 'ENERGY'],
  preaheatingDeactivatedSetTheClock: [
    'Preheating deactivated: set the clock',
    "Préchauffage désactivé : réglez l'horloge",
    'COMFORT',
  ],
  trailerConnectionFault: ['Trailer connection fault', "Défaut de l'attelage de remorque", 'LIGHTING'],
  underInflationTyreFault: [
    'Under-inflation detection fault',
    'Défaut de la détection de sous-gonflage',
    'TYRES',
  ],
  limitedVisibilityAidsCamera: ['Camera visibility limited', 'Visibilité de la caméra limitée', 'AIDS'],
  electricModeNotAvailable: ['Electric mode not available', 'Mode électrique indisponible', 'ENERGY'],
  wheelPressureFault: ['Wheel pressure fault', 'Défaut de pression des roues', 'TYRES'],
  checkSideLamps: ['Check the side lamps', 'Vérifiez les feux de position', 'LIGHTING'],
  checkRightBrakeLamp: ['Check the right brake lamp', 'Vérifiez le feu stop droit', 'LIGHTING'],
  checkLeftBrakeLamp: ['Check the left brake lamp', 'Vérifiez le feu stop gauche', 'LIGHTING'],
  frontFoglightFault: ['Front fog lamp fault', 'Défaut du projecteur antibrouillard avant', 'LIGHTING'],
  rearFoglightFault: ['Rear fog lamp fault', 'Défaut du feu antibrouillard arrière', 'LIGHTING'],
  checkDirectionIndicator: [
    'Check the direction indicators',
    'Vérifiez les indicateurs de direction',
    'LIGHTING',
  ],
  checkReversingLamp: ['Check the reversing lamp', 'Vérifiez le feu de recul', 'LIGHTING'],
  parkingAssistanceFault: ['Parking assistance fault', "Défaut de l'aide au stationnement", 'AIDS'],
  adjustTyrePressure: ['Adjust the tyre pressure', 'Ajustez la pression des pneumatiques', 'TYRES'],
  antipollutionFault: ['Emission control system fault', 'Défaut du système antipollution', 'ENGINE'],
  placeGearBoxToP: ['Put the gearbox in P', 'Placez la boîte de vitesses sur P', 'SAFETY'],
  riskOfIce: ['Risk of ice', 'Risque de verglas', 'AIDS'],
  frontRightDoorOpen: ['Front right door open', 'Porte avant droite ouverte', 'OPENINGS'],
  frontLeftDoorOpen: ['Front left door open', 'Porte avant gauche ouverte', 'OPENINGS'],
  rearRightDoorOpen: ['Rear right door open', 'Porte arrière droite ouverte', 'OPENINGS'],
  rearLeftDoorOpen: ['Rear left door open', 'Porte arrière gauche ouverte', 'OPENINGS'],
  trunkOpen: ['Boot open', 'Coffre ouvert', 'OPENINGS'],
  bootOpen: ['Tailgate open', 'Hayon ouvert', 'OPENINGS'],
  rearScreenOpen: ['Rear screen open', 'Lunette arrière ouverte', 'OPENINGS'],
  parkingBreakFault: ['Parking brake fault', 'Défaut du frein de stationnement', 'SAFETY'],
  activeSpoilerFault: ['Active spoiler fault', "Défaut de l'aileron actif", 'COMFORT'],
  automaticBreakingSystemFault: [
    'Automatic emergency braking fault',
    "Défaut du freinage automatique d'urgence",
    'AIDS',
  ],
  directionalHeadlampsFault: [
    'Directional headlamps fault',
    'Défaut des projecteurs directionnels',
    'LIGHTING',
  ],
  automaticGearboxFault: ['Automatic gearbox fault', 'Défaut de la boîte de vitesses automatique', 'ENGINE'],
  suspensionFaultLimitTo90km: [
    'Suspension fault: do not exceed 90 km/h',
    'Défaut de suspension : ne dépassez pas 90 km/h',
    'SAFETY',
  ],
  frontLeftTyreNotMonitored: [
    'Front left tyre not monitored',
    'Pneumatique avant gauche non surveillé',
    'TYRES',
  ],
  frontRightTyreNotMonitored: [
    'Front right tyre not monitored',
    'Pneumatique avant droit non surveillé',
    'TYRES',
  ],
  rearRightTyreNotMonitored: [
    'Rear right tyre not monitored',
    'Pneumatique arrière droit non surveillé',
    'TYRES',
  ],
  rearLeftTyreNotMonitored: [
    'Rear left tyre not monitored',
    'Pneumatique arrière gauche non surveillé',
    'TYRES',
  ],
  powerSteeringFault: ['Power steering fault', 'Défaut de direction assistée', 'SAFETY'],
  laneDepartureFault: [
    'Lane departure warning fault',
    "Défaut de l'alerte de franchissement de ligne",
    'AIDS',
  ],
  tyreUnderInflation: ['Tyre under-inflated', 'Pneumatique sous-gonflé', 'TYRES'],
  spareWheelFittedDrivingAidsDeactivated: [
    'Spare wheel fitted: driving aids deactivated',
    'Roue de secours montée : aides à la conduite désactivées',
    'AIDS',
  ],
  automaticBreakingDeactived: [
    'Automatic emergency braking deactivated',
    "Freinage automatique d'urgence désactivé",
    'AIDS',
  ],
  tupUpAdBlue: ['Top up AdBlue', "Faites l'appoint d'AdBlue", 'ENGINE'],
  longPushToUnlockTankFault: [
    'Fuel filler flap unlocking fault',
    'Défaut de déverrouillage de la trappe à carburant',
    'ENGINE',
  ],
};

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
export type EcoDetailedCode =
  | 'acceleration'
  | 'braking'
  | 'engineSpeed'
  | 'stopAndStart'
  | 'speed'
  | 'slope'
  | 'coldTrips';
export type EcoCode = EcoGlobalCode | EcoDetailedCode;

export const ECO_GLOBAL_CODES: readonly EcoGlobalCode[] = ['drivingMark', 'drivingAttitude', 'roadProfile'];
export const ECO_DETAILED_CODES: readonly EcoDetailedCode[] = [
  'acceleration',
  'braking',
  'engineSpeed',
  'stopAndStart',
  'speed',
  'slope',
  'coldTrips',
];

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
