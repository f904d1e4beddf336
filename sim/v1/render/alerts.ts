import type { SimAlert, SimVehicle } from '../../world/types';
import { formatStamp } from '../format';
import { alertAdvice, alertMessage } from '../labels';
import type { Lang } from '../params';

export interface AlertEntry {
  idAlert: string;
  dateUpdate: string;
  vin?: string;
  contract?: string;
  dateAlertBegin: string;
  /** Empty string while the alert is active. */
  dateAlertEnd: string;
  /** 1 active, 0 ended. */
  alertState: number;
  alert: string;
  advise: string;
  category: string;
}

/** Alerts of a vehicle in the requested state, newest first. */
export function alertsInState(alerts: readonly SimAlert[], active: boolean): SimAlert[] {
  return alerts.filter((a) => a.active === active).sort((a, b) => b.createdAt - a.createdAt);
}

/** One alert; `withVehicle` adds vin/contract to the entry (bulk list, where entries mix vehicles). */
export function renderAlert(
  vehicle: SimVehicle,
  alert: SimAlert,
  lang: Lang,
  withVehicle: boolean,
): AlertEntry {
  return {
    idAlert: alert.id,
    dateUpdate: formatStamp(alert.updatedAt),
    ...(withVehicle ? { vin: vehicle.vin, contract: vehicle.contract } : {}),
    dateAlertBegin: formatStamp(alert.createdAt),
    dateAlertEnd: alert.active ? '' : formatStamp(alert.endedAt ?? alert.updatedAt),
    alertState: alert.active ? 1 : 0,
    alert: alertMessage(alert.code, lang),
    advise: alertAdvice(alert.severity, lang),
    category: alert.category,
  };
}
