import {
  ALERT_GROUPS,
  ALERT_MESSAGES,
  alertGroup,
  alertMessage,
  ECO_CATEGORIES,
  ECO_DETAILED_CODES,
  ECO_GLOBAL_CODES,
  ECO_LEVELS,
  ecoCategoryOf,
  ecoTexts,
  FUEL_LABELS,
  MAINTENANCE_GROUPS,
  MAINTENANCE_LABELS,
  tr,
} from '../labels';
import type { Lang } from '../params';

export interface IndicatorReferential {
  indicatorCode: string;
  indicatorLabel: string;
  rgrpCode: string;
  rgrpLabel: string;
}

export interface EcoReferential {
  edMarkType: string;
  edMarkLabel: string;
  edCategoryCode: string;
  edCategoryLabel: string;
  edEvaluation: string;
  edAdvice: string;
  edLevel: string;
}

/** The indicators of the Maintenance (v1) record, with the labels its `<name>Label` objects carry. */
export function maintenanceReferential(lang: Lang): IndicatorReferential[] {
  const fuel = Object.entries(FUEL_LABELS).map(([code, text]) => ({
    indicatorCode: code,
    indicatorLabel: tr(text, lang),
    rgrpCode: 'FUEL',
    rgrpLabel: tr(MAINTENANCE_GROUPS.FUEL, lang),
  }));
  const maintenance = Object.entries(MAINTENANCE_LABELS).map(([code, text]) => ({
    indicatorCode: code,
    indicatorLabel: tr(text, lang),
    rgrpCode: 'MAINTENANCE',
    rgrpLabel: tr(MAINTENANCE_GROUPS.MAINTENANCE, lang),
  }));
  return [...fuel, ...maintenance];
}

/** One entry per alert code of shared/reference/alert-messages.json. */
export function alertReferential(lang: Lang): IndicatorReferential[] {
  return Object.keys(ALERT_MESSAGES).map((code) => {
    const group = alertGroup(code);
    return {
      indicatorCode: code,
      indicatorLabel: alertMessage(code, lang),
      rgrpCode: group,
      rgrpLabel: tr(ALERT_GROUPS[group], lang),
    };
  });
}

/** Every mark × level, with the texts the eco evaluations' Label objects carry. */
export function ecodrivingReferential(lang: Lang): EcoReferential[] {
  const out: EcoReferential[] = [];
  for (const code of [...ECO_GLOBAL_CODES, ...ECO_DETAILED_CODES]) {
    const category = ecoCategoryOf(code);
    for (const level of ECO_LEVELS) {
      const t = ecoTexts(code, level, lang);
      out.push({
        edMarkType: code,
        edMarkLabel: t.label,
        edCategoryCode: category,
        edCategoryLabel: tr(ECO_CATEGORIES[category], lang),
        edEvaluation: t.evaluation,
        edAdvice: t.advice,
        edLevel: String(level),
      });
    }
  }
  return out;
}
