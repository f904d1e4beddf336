/**
 * The freshness targets setting: the p95 lag each kind of change should stay within, written
 * `alerts=5m,maintenance=1h` (units s, m, h, d). No target by default. The same text is read from
 * `CARHOOK_FRESHNESS_TARGETS`, the `--freshness-targets` flag of `carhook dev`, and the CDK prop
 * `freshnessTargets` (written into that variable); a bad entry is refused naming its kind.
 */
import { type FreshnessKind, freshnessKinds } from '../core/capacity/kinds';
import type { FreshnessTargets } from '../core/capacity/report';
import { FRESHNESS_TARGETS_SETTING } from './settings';

export type { FreshnessTargets };
export { FRESHNESS_TARGETS_SETTING };

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export type ParsedTargets =
  | { readonly ok: true; readonly value: FreshnessTargets }
  | { readonly ok: false; readonly field: string; readonly message: string };

const refuse = (field: string, message: string): ParsedTargets => ({ ok: false, field, message });

/** Parses `alerts=5m,maintenance=1h`; blank: no target. `field` in a refusal is the kind (or the entry). */
export function parseFreshnessTargets(raw: string | undefined): ParsedTargets {
  const text = (raw ?? '').trim();
  if (text === '') return { ok: true, value: {} };
  const value: FreshnessTargets = {};
  for (const entry of text.split(',').map((e) => e.trim())) {
    const m = /^([a-z_]+)\s*=\s*(\d+)\s*([smhd])$/.exec(entry);
    const kind = entry.split('=')[0]?.trim() ?? entry;
    if (!(freshnessKinds as readonly string[]).includes(kind)) {
      return refuse(
        kind || entry,
        `"${entry}": "${kind}" is not a kind of change (one of ${freshnessKinds.join(', ')})`,
      );
    }
    if (!m) return refuse(kind, `"${entry}": must be ${kind}=<whole number><s|m|h|d>, such as ${kind}=5m`);
    const ms = Number(m[2]) * (UNIT_MS[m[3] as string] as number);
    if (ms < FRESHNESS_TARGETS_SETTING.minMs || ms > FRESHNESS_TARGETS_SETTING.maxMs) {
      return refuse(kind, `"${entry}": must be from 1 s to 30 days`);
    }
    if (value[kind as FreshnessKind] !== undefined) return refuse(kind, `"${entry}": ${kind} is given twice`);
    value[kind as FreshnessKind] = ms;
  }
  return { ok: true, value };
}

/** The setting's text for a value (what the CDK writes into the variable), in whole seconds. */
export function formatFreshnessTargets(targets: FreshnessTargets): string {
  return freshnessKinds
    .filter((k) => targets[k] !== undefined)
    .map((k) => `${k}=${Math.round((targets[k] as number) / 1000)}s`)
    .join(',');
}
