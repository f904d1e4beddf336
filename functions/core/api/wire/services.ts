/**
 * Wire schemas of the services and map areas. Their response bodies are not documented in detail,
 * so the schemas accept the plausible wrappers (a bare array, `{services: […]}`, HAL) and keep what
 * they cannot type raw.
 */
import * as z from 'zod';
import type { MapUpdateInfo, ServiceEligibility } from '../model';
import { defined, toIsoDate, wBoolean, wOptNumber } from './common';

// ---- Services and eligibility (area B) ----

export const wServiceEligibility = z
  .looseObject({
    code: z.string(),
    shortLabel: z.string().optional().catch(undefined),
    eligible: wBoolean,
  })
  .transform(
    (s): ServiceEligibility => defined({ code: s.code, shortLabel: s.shortLabel, eligible: s.eligible }),
  );

/** An array of entries; a wrapper object (`{services: […]}` or HAL) is accepted too. */
export const wServiceList = z.union([
  z.array(wServiceEligibility),
  z.looseObject({ services: z.array(wServiceEligibility) }).transform((o) => o.services),
  z
    .looseObject({ _embedded: z.looseObject({ services: z.array(wServiceEligibility) }) })
    .transform((o) => o._embedded.services),
]);

/** Eligibilities: the response body is not documented; kept raw. */
export type Eligibilities = Readonly<Record<string, unknown>> | readonly unknown[];
export const wEligibilities = z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]);

// ---- Map update (the response body is not documented) ----

export const wMapInfo = z
  .looseObject({
    vin: z.string(),
    installedVersion: z.string().optional().catch(undefined),
    currentVersion: z.string().optional().catch(undefined),
    availableVersion: z.string().optional().catch(undefined),
    latestVersion: z.string().optional().catch(undefined),
    version: z.string().optional().catch(undefined),
    releasedAt: z.unknown().optional(),
    releaseDate: z.unknown().optional(),
    updateAvailable: wBoolean.optional().catch(undefined),
    sizeMb: wOptNumber,
  })
  .transform((m, ctx): MapUpdateInfo => {
    const installed = m.installedVersion ?? m.currentVersion;
    const available = m.availableVersion ?? m.latestVersion ?? m.version;
    if (available === undefined) {
      ctx.addIssue({ code: 'custom', message: 'missing availableVersion', path: ['availableVersion'] });
      return z.NEVER;
    }
    return defined({
      vin: m.vin,
      installedVersion: installed,
      availableVersion: available,
      releasedAt: toIsoDate(m.releasedAt ?? m.releaseDate),
      updateAvailable: m.updateAvailable ?? (installed !== undefined && installed !== available),
      sizeMb: m.sizeMb,
    });
  });

export const wMapBulk = z.union([
  z.array(wMapInfo),
  z.looseObject({ maps: z.array(wMapInfo) }).transform((o) => o.maps),
  z.looseObject({ results: z.array(wMapInfo) }).transform((o) => o.results),
  z.looseObject({ items: z.array(wMapInfo) }).transform((o) => o.items),
]);
