/**
 * `carhook capacity`: what the quota keeps fresh (GET /capacity), per kind of change: the
 * guarantee, the expected mean and p95 lag, and for each freshness target whether it is met, how
 * many vehicles like the current ones fit, and the quota that would meet it.
 */
import type { Command } from 'commander';
import type { Capacity } from '../../functions/http/capacity-contract';
import { call, show, str, table } from './common';

const secs = (v: unknown): string => {
  if (typeof v !== 'number') return 'never';
  if (v < 120) return `${v} s`;
  if (v < 7200) return `${Math.round(v / 6) / 10} min`;
  return `${Math.round(v / 360) / 10} h`;
};

/** The human view: the quota, then one row per kind. */
export function capacityText(body: Capacity): string {
  const q = body.quota;
  const head = [
    `${str(body.vehicles)} vehicles (${str(body.vehiclesWithActiveAlerts)} with active alerts), ${str(body.changesPerHour)} changes an hour learned, strategy ${str(body.strategy)}`,
    `quota ${str(q.limit)} per ${str(q.windowSeconds)} s: ${str(q.budgetPerCycle)} requests a ${str(q.cycleSeconds)} s cycle, ${str(q.reservePerCycle)} kept for follow-ups, ${str(q.readsPerCycle)} planned`,
  ];
  const rows = body.kinds.map((k) => {
    const t = k.target;
    const fit =
      t === undefined
        ? ''
        : t.vehiclesThatFit === null
          ? 'not quota-bound'
          : `${str(t.vehiclesThatFit)} (${Number(t.moreVehicles) >= 0 ? '+' : ''}${str(t.moreVehicles)})`;
    return [
      str(k.kind),
      secs(k.guaranteeS),
      secs(k.meanS),
      secs(k.p95S),
      t === undefined ? '-' : `${secs(t.s)} ${t.met === true ? 'met' : 'MISSED'}`,
      fit,
      t === undefined ? '' : t.quotaForTarget === null ? 'none' : str(t.quotaForTarget),
    ];
  });
  return [
    ...head,
    table([
      ['kind', 'guarantee', 'mean', 'p95', 'target (p95)', 'vehicles that fit', 'quota for target'],
      ...rows,
    ]),
  ].join('\n');
}

export function addCapacityCommand(program: Command): void {
  program
    .command('capacity')
    .description(
      'what the quota keeps fresh per kind: guarantee, expected mean and p95 lag, vehicles that fit a target, the quota a target needs',
    )
    .action(async (_o: unknown, command: Command) => {
      const r = await call(command, 'GET /capacity');
      show(command, r.body, () => capacityText(r.body));
    });
}
