import type { BrandCode, BrandInfo, Energy, Severity } from './types';

/** Two fictional brand groups (the v1 `brand` parameter is `C` or `P`). */
export const BRANDS: Readonly<Record<BrandCode, BrandInfo>> = {
  C: { code: 'C', name: 'Cielo', authSegment: 'cielo' },
  P: { code: 'P', name: 'Pavo', authSegment: 'pavo' },
};

export function brandBySegment(segment: string): BrandInfo | undefined {
  return Object.values(BRANDS).find((b) => b.authSegment === segment);
}

export interface ModelSpec {
  readonly model: string;
  readonly subModels: readonly string[];
  readonly engines: readonly { engine: string; energy: Energy; gearbox: string }[];
  readonly tankLiters: number;
}

export const MODELS: Readonly<Record<BrandCode, readonly ModelSpec[]>> = {
  C: [
    {
      model: 'Cielo Aria',
      subModels: ['Feel', 'Shine', 'Live'],
      engines: [
        { engine: 'PureTech 110', energy: 'petrol', gearbox: 'MAN6' },
        { engine: 'BlueHDi 100', energy: 'diesel', gearbox: 'MAN6' },
      ],
      tankLiters: 45,
    },
    {
      model: 'Cielo Bora',
      subModels: ['Business', 'Shine Pack'],
      engines: [
        { engine: 'BlueHDi 130', energy: 'diesel', gearbox: 'EAT8' },
        { engine: 'Hybrid 225', energy: 'hybrid', gearbox: 'EAT8' },
      ],
      tankLiters: 53,
    },
    {
      model: 'Cielo e-Nube',
      subModels: ['Live', 'Feel'],
      engines: [{ engine: 'e-Motor 136', energy: 'electric', gearbox: 'AUTO1' }],
      tankLiters: 50,
    },
  ],
  P: [
    {
      model: 'Pavo 208R',
      subModels: ['Active', 'Allure', 'GT'],
      engines: [
        { engine: 'PureTech 100', energy: 'petrol', gearbox: 'MAN6' },
        { engine: 'PureTech 130', energy: 'petrol', gearbox: 'EAT8' },
      ],
      tankLiters: 44,
    },
    {
      model: 'Pavo 3008R',
      subModels: ['Allure', 'GT Line'],
      engines: [
        { engine: 'BlueHDi 130', energy: 'diesel', gearbox: 'EAT8' },
        { engine: 'Hybrid4 300', energy: 'hybrid', gearbox: 'EAT8' },
      ],
      tankLiters: 53,
    },
    {
      model: 'Pavo e-2008R',
      subModels: ['Active', 'GT'],
      engines: [{ engine: 'e-Motor 136', energy: 'electric', gearbox: 'AUTO1' }],
      tankLiters: 50,
    },
  ],
};

export const FIRST_NAMES = [
  'Camille',
  'Louis',
  'Emma',
  'Jules',
  'Chloé',
  'Hugo',
  'Léa',
  'Arthur',
  'Manon',
  'Gabriel',
  'Inès',
  'Raphaël',
  'Alice',
  'Nathan',
  'Zoé',
  'Paul',
  'Sarah',
  'Lucas',
  'Jade',
  'Adam',
] as const;

export const LAST_NAMES = [
  'Martin',
  'Bernard',
  'Dubois',
  'Thomas',
  'Robert',
  'Richard',
  'Petit',
  'Durand',
  'Leroy',
  'Moreau',
  'Simon',
  'Laurent',
  'Lefebvre',
  'Michel',
  'Garcia',
  'David',
  'Bertrand',
  'Roux',
  'Vincent',
  'Fournier',
] as const;

/** Cities the simulated vehicles live around: [lon, lat, alt]. */
export const CITIES: readonly (readonly [number, number, number])[] = [
  [2.3522, 48.8566, 35],
  [4.8357, 45.764, 173],
  [5.3698, 43.2965, 12],
  [1.4442, 43.6047, 146],
  [-1.5536, 47.2184, 20],
  [7.2619, 43.7102, 10],
  [-0.5792, 44.8378, 6],
  [3.0573, 50.6292, 20],
];

/**
 * Alert message codes (shared reference alert-messages.json), with a French rendering. The English
 * text is derived from the code itself (see `alertMessage`), so the two stay in step.
 */
export const ALERT_MESSAGES_FR: Readonly<Record<string, string>> = {
  alertOilPressure: "Alerte pression d'huile",
  alertCoolantTemp: 'Alerte température du liquide de refroidissement',
  chargingSystemFault: 'Défaut du système de charge',
  alertBrakeFluid: 'Alerte liquide de frein',
  steeringFault: 'Défaut de direction',
  alertCoolantLevel: 'Alerte niveau du liquide de refroidissement',
  laneDepartureWarningSystemFault: "Défaut de l'alerte de franchissement de ligne",
  frontLeftDoorOpenHighSpeed: 'Porte avant gauche ouverte à haute vitesse',
  frontRightDoorOpenHighSpeed: 'Porte avant droite ouverte à haute vitesse',
  rearLeftDoorOpenHighSpeed: 'Porte arrière gauche ouverte à haute vitesse',
  rearRightDoorOpenHighSpeed: 'Porte arrière droite ouverte à haute vitesse',
  trunkOpenHighSpeed: 'Coffre ouvert à haute vitesse',
  trunkWindowOpen: 'Lunette de coffre ouverte',
  espFault: "Défaut de l'ESP",
  batteryLevelFault: 'Défaut du niveau de batterie',
  waterInGasoil: 'Présence d’eau dans le gazole',
  padWearFault: 'Usure des plaquettes de frein',
  fuelLevelAlarm: 'Alerte niveau de carburant',
  airbagOrSeatbeltFault: 'Défaut airbag ou ceinture de sécurité',
  engineFault: 'Défaut moteur',
  absFault: "Défaut de l'ABS",
  riskOfParticleFilterBlockage: 'Risque de colmatage du filtre à particules',
  particleFilterAdditiveTooLow: "Niveau d'additif du filtre à particules trop bas",
  suspensionFault: 'Défaut de suspension',
  preaheatingDeactivatedBatteryTooLow: 'Préchauffage désactivé : batterie trop faible',
  preaheatingDeactivatedFuelLevelTooLow: 'Préchauffage désactivé : niveau de carburant trop bas',
  checkTheBrakeLamp: 'Vérifier le feu stop',
  retractableRoofMechanismFault: 'Défaut du mécanisme de toit escamotable',
  alertSteeringLock: 'Alerte antivol de direction',
  electronicImmobiliserFault: "Défaut de l'antidémarrage électronique",
  roofOperationImpossibleTemperatureTooHigh: 'Manœuvre du toit impossible : température trop élevée',
  roofOperationImpossibleStartEngine: 'Manœuvre du toit impossible : démarrer le moteur',
  roofOperationImpossibleApplyParkingBreak: 'Manœuvre du toit impossible : serrer le frein de stationnement',
  hybridSystemFault: 'Défaut du système hybride',
  automaticHeadlampFault: "Défaut de l'allumage automatique des feux",
  hybridSystemFaultRepairedTheVehicle: 'Défaut du système hybride : faire réparer le véhicule',
  washerLevelAlarm: 'Alerte niveau de lave-glace',
  batteryKeyAlarm: 'Alerte pile de la clé',
  preaheatingDeactivatedSetTheClock: "Préchauffage désactivé : régler l'horloge",
  trailerConnectionFault: "Défaut de connexion de l'attelage",
  underInflationTyreFault: 'Défaut de détection de sous-gonflage',
  limitedVisibilityAidsCamera: 'Visibilité réduite des caméras d’aide',
  electricModeNotAvailable: 'Mode électrique indisponible',
  wheelPressureFault: 'Défaut de pression des roues',
  checkSideLamps: 'Vérifier les feux de position',
  checkRightBrakeLamp: 'Vérifier le feu stop droit',
  checkLeftBrakeLamp: 'Vérifier le feu stop gauche',
  frontFoglightFault: 'Défaut du projecteur antibrouillard avant',
  rearFoglightFault: 'Défaut du feu antibrouillard arrière',
  checkDirectionIndicator: 'Vérifier les clignotants',
  checkReversingLamp: 'Vérifier le feu de recul',
  parkingAssistanceFault: "Défaut de l'aide au stationnement",
  adjustTyrePressure: 'Ajuster la pression des pneus',
  antipollutionFault: 'Défaut antipollution',
  placeGearBoxToP: 'Placer la boîte de vitesses sur P',
  riskOfIce: 'Risque de verglas',
  frontRightDoorOpen: 'Porte avant droite ouverte',
  frontLeftDoorOpen: 'Porte avant gauche ouverte',
  rearRightDoorOpen: 'Porte arrière droite ouverte',
  rearLeftDoorOpen: 'Porte arrière gauche ouverte',
  trunkOpen: 'Coffre ouvert',
  bootOpen: 'Hayon ouvert',
  rearScreenOpen: 'Lunette arrière ouverte',
  parkingBreakFault: 'Défaut du frein de stationnement',
  activeSpoilerFault: "Défaut de l'aileron actif",
  automaticBreakingSystemFault: 'Défaut du freinage automatique d’urgence',
  directionalHeadlampsFault: 'Défaut des projecteurs directionnels',
  automaticGearboxFault: 'Défaut de la boîte de vitesses automatique',
  suspensionFaultLimitTo90km: 'Défaut de suspension : limiter la vitesse à 90 km/h',
  frontLeftTyreNotMonitored: 'Pneu avant gauche non surveillé',
  frontRightTyreNotMonitored: 'Pneu avant droit non surveillé',
  rearRightTyreNotMonitored: 'Pneu arrière droit non surveillé',
  rearLeftTyreNotMonitored: 'Pneu arrière gauche non surveillé',
  powerSteeringFault: 'Défaut de la direction assistée',
  laneDepartureFault: 'Défaut du système de maintien dans la voie',
  tyreUnderInflation: 'Sous-gonflage des pneus',
  spareWheelFittedDrivingAidsDeactivated: 'Roue de secours montée : aides à la conduite désactivées',
  automaticBreakingDeactived: 'Freinage automatique désactivé',
  tupUpAdBlue: "Faire l'appoint d'AdBlue",
  longPushToUnlockTankFault: 'Appui long pour déverrouiller la trappe : défaut',
};

export const ALERT_CODES: readonly string[] = Object.keys(ALERT_MESSAGES_FR);

export type Locale = 'en' | 'fr';

/** English: the camelCase code split into words, first letter capitalized (`alertOilPressure` → `Alert oil pressure`). */
export function alertMessage(code: string, locale: Locale): string {
  if (locale === 'fr') {
    const fr = ALERT_MESSAGES_FR[code];
    if (fr !== undefined) return fr;
  }
  const words = code
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Severity and category of an alert code: fixed per code so the same code always reads the same. */
export function alertClass(code: string): { severity: Severity; category: string } {
  const c = code.toLowerCase();
  const category = /door|trunk|boot|screen|roof/.test(c)
    ? 'opening'
    : /brake|break|abs|pad|esp/.test(c)
      ? 'braking'
      : /tyre|wheel/.test(c)
        ? 'tyres'
        : /lamp|light|headlamp|indicator/.test(c)
          ? 'lighting'
          : /oil|coolant|engine|particle|antipollution|adblue|gasoil|fuel|hybrid|electric|gearbox/.test(c)
            ? 'engine'
            : 'equipment';
  const high =
    /oilpressure|coolanttemp|brakefluid|steeringfault|highspeed|enginefault|airbag|powersteering/.test(c);
  const low = /check|washer|key|clock|ice|open$|tupup|notmonitored|preaheating/.test(c);
  return { severity: high ? 'high' : low ? 'low' : 'medium', category };
}

/** Advice shown with an alert (the sample's alternative alert shape has an `advise` field). */
export function alertAdvice(severity: Severity, locale: Locale): string {
  if (locale === 'fr') {
    return severity === 'high'
      ? 'Arrêtez-vous immédiatement et contactez un réparateur'
      : severity === 'medium'
        ? 'Consultez un réparateur rapidement'
        : 'Vérifiez lors du prochain arrêt';
  }
  return severity === 'high'
    ? 'Stop the vehicle at once and call a dealer'
    : severity === 'medium'
      ? 'See a dealer soon'
      : 'Check at the next stop';
}

/** Connected services a vehicle may be eligible for (the service-support lookups). */
export const SERVICES: readonly { code: string; shortLabel: string }[] = [
  { code: 'ECALL', shortLabel: 'Emergency call' },
  { code: 'BCALL', shortLabel: 'Assistance call' },
  { code: 'NAV_CONNECTED', shortLabel: 'Connected navigation' },
  { code: 'REMOTE_LIGHTS', shortLabel: 'Remote lights and horn' },
  { code: 'REMOTE_CLIMATE', shortLabel: 'Remote climate control' },
  { code: 'TELEMAINTENANCE', shortLabel: 'Maintenance reminders' },
  { code: 'ECODRIVING', shortLabel: 'Eco-driving coaching' },
  { code: 'STOLEN_VEHICLE', shortLabel: 'Stolen vehicle tracking' },
];

/** Eco-driving entry names: global entries (trend, style, road) and detailed ones. */
export const ECO_GLOBAL = ['trend', 'style', 'road'] as const;
export const ECO_DETAILED = [
  'acceleration',
  'braking',
  'engineSpeed',
  'stopAndStart',
  'speed',
  'slope',
  'coldTrips',
] as const;

export function ecoEvaluation(score: number): { evaluation: string; advice: string; category: string } {
  if (score >= 80) return { evaluation: 'good', advice: 'Keep it up', category: 'A' };
  if (score >= 60) return { evaluation: 'average', advice: 'Anticipate more', category: 'B' };
  return { evaluation: 'poor', advice: 'Drive more smoothly', category: 'C' };
}
