import { hashedInt, hashText } from '../../world/prng';
import type { SimVehicle } from '../../world/types';
import { formatDay, formatStamp, round } from '../format';
import type { PictureOptions } from '../params';

export interface VehicleInformation {
  color: string;
  cod_fin: string;
  cod_sil: string;
  cod_ccn: string;
  cod_log: number;
  lcdv: string;
  vis: string;
  imei: string;
  deliveryDate: string;
  manufacturingDate: string;
  cod_acc: string;
  cod_eng: string;
  cod_fam: string;
  flagSual: number;
  brand: string;
  design: string;
  vehLiv: string;
  vin: string;
  contract: string;
  lastUpdate: string;
}

const COLORS = ['WHITE', 'BLACK', 'GREY', 'SILVER', 'RED', 'BLUE', 'GREEN', 'BROWN'] as const;
const ALNUM = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789';

/** `length` characters of [A-Z0-9] derived from `key`. */
function code(key: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALNUM[hashText(`${key}:${i}`) % ALNUM.length];
  return out;
}

/** 15-digit IMEI whose last digit is the Luhn check digit. */
function imei(key: string): string {
  const digits = Array.from({ length: 14 }, (_, i) => hashText(`${key}:${i}`) % 10);
  const sum = digits.reduce((acc, d, i) => {
    const v = i % 2 === 1 ? d * 2 : d;
    return acc + (v > 9 ? v - 9 : v);
  }, 0);
  return digits.join('') + String((10 - (sum % 10)) % 10);
}

/** 16-character vehicle configuration code, stable per brand, model and engine. */
export function lcdvOf(vehicle: SimVehicle): string {
  return `1${vehicle.brand}${code(`lcdv:${vehicle.model}:${vehicle.subModel}:${vehicle.engine}`, 14)}`;
}

/** Everything not in the world is derived from the vehicle id, so it never changes between calls. */
export function renderVehicleInformation(vehicle: SimVehicle): VehicleInformation {
  const id = vehicle.id;
  const built = vehicle.createdAt - hashedInt(`${id}:built`, 20, 90) * 86_400_000;
  return {
    color: COLORS[hashText(`${id}:color`) % COLORS.length] ?? 'WHITE',
    cod_fin: code(`${id}:fin`, 4),
    cod_sil: code(`sil:${vehicle.model}`, 2),
    cod_ccn: code(`${id}:ccn`, 3),
    cod_log: hashedInt(`${id}:log`, 100, 999),
    lcdv: lcdvOf(vehicle),
    // The vehicle identifier section of the VIN (its last 8 characters).
    vis: vehicle.vin.slice(-8),
    imei: imei(`${id}:imei`),
    deliveryDate: formatDay(vehicle.createdAt),
    manufacturingDate: formatDay(built),
    cod_acc: code(`${id}:acc`, 6),
    cod_eng: code(`eng:${vehicle.engine}`, 4),
    cod_fam: code(`fam:${vehicle.model}`, 3),
    flagSual: hashText(`${id}:sual`) % 2,
    brand: vehicle.brand,
    design: `${vehicle.model} ${vehicle.subModel}`.trim(),
    vehLiv: '1',
    vin: vehicle.vin,
    contract: vehicle.contract,
    lastUpdate: formatStamp(vehicle.updatedAt),
  };
}

export interface ReferenceFuelPrice {
  fuelPrice: number;
  vin: string;
  contract: string;
}

export function renderReferenceFuelPrice(vehicle: SimVehicle): ReferenceFuelPrice {
  return { fuelPrice: round(vehicle.referenceFuelPrice, 3), vin: vehicle.vin, contract: vehicle.contract };
}

export interface PictureDescription {
  url: string;
  width: number;
  height: number;
  format: string;
  background: string;
  trim: string;
  view: string;
  ratio: string;
  vin: string;
  contract: string;
  lastUpdate: string;
}

/** Host of the (never served) picture URLs: `.invalid` so nothing tries to fetch them for real. */
export const PICTURE_HOST = 'https://visuals.carhook-sim.invalid';

/** Height from a `w:h` ratio; a ratio that is not two positive numbers keeps the picture square. */
function heightFor(width: number, ratio: string): number {
  const m = /^(\d+(?:\.\d+)?)[:x/](\d+(?:\.\d+)?)$/.exec(ratio);
  const w = Number(m?.[1]);
  const h = Number(m?.[2]);
  return w > 0 && h > 0 ? Math.round((width * h) / w) : width;
}

export function renderPicture(
  vehicle: SimVehicle,
  options: PictureOptions,
  updatedAt: number,
): PictureDescription {
  const query = new URLSearchParams({
    width: String(options.width),
    background: options.background,
    trim: options.trim,
    ratio: options.ratio,
  });
  return {
    url: `${PICTURE_HOST}/v1/${lcdvOf(vehicle)}/${encodeURIComponent(options.view)}.${encodeURIComponent(options.format)}?${query}`,
    width: options.width,
    height: heightFor(options.width, options.ratio),
    format: options.format,
    background: options.background,
    trim: options.trim,
    view: options.view,
    ratio: options.ratio,
    vin: vehicle.vin,
    contract: vehicle.contract,
    lastUpdate: formatStamp(updatedAt),
  };
}
