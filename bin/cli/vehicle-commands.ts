/**
 * `carhook vehicles …`: the vehicles Carhook polls (list), one in full (get: connection, the last and
 * next read of each kind, learned change rate, share of the quota, recent events), pause and resume.
 */
import type { Command } from 'commander';
import type { Vehicle, VehicleDetail } from '../../functions/http/contract';
import { allPages, call, show, str, table } from './common';

const minutes = (ms: number) =>
  ms >= 3_600_000 ? `${Math.round(ms / 360_000) / 10} h` : `${Math.round(ms / 60_000)} min`;

export function vehicleLines(d: VehicleDetail): string {
  const v = d.vehicle;
  const c = d.connection;
  return [
    `vehicle ${v.id}  VIN ${v.vin}${v.brand ? `  ${v.brandName ?? v.brand}` : ''}${v.model ? ` ${v.model}` : ''}`,
    `  enrollment ${d.enrollment.id} (${d.enrollment.kind}): ${d.enrollment.status}`,
    `  connection ${c.state}${v.pauseReason ? ` (${v.pauseReason})` : ''}${
      c.tokenExpiresAt
        ? `; token ${c.tokenValid ? 'valid' : 'expired (refreshed when next used)'} until ${c.tokenExpiresAt}`
        : ''
    }${c.reauthorizationUrl ? `; the user authorizes again at ${c.reauthorizationUrl}` : ''}`,
    table([
      ['READ', 'LAST', 'FROM', 'NEXT BY', 'EVERY'],
      ...d.reads.map((r) => [r.kind, str(r.lastAt), r.source, str(r.nextBy), minutes(r.everyMs)]),
    ]),
    d.changeRate
      ? `  learned change rate ${d.changeRate.eventsPerHour} per hour (over ${d.changeRate.observedHours} h observed), ${d.changeRate.activeAlerts} alert(s) active`
      : '  learned change rate: not yet (no poll observed)',
    `  quota: at least ${d.quota.readsPerHourAtLeast} reads per hour of ${d.quota.perHour} (${Number((d.quota.shareAtLeast * 100).toPrecision(2))} %), events at least every ${minutes(d.quota.guaranteeMs)}`,
    `  recent events (${d.recentEvents.length})`,
    ...d.recentEvents.slice(0, 20).map((e) => `    ${e.detectedAt}  #${e.sequence}  ${e.type}  ${e.id}`),
  ].join('\n');
}

export function addVehicleCommands(program: Command): void {
  const vehicles = program.command('vehicles').description('the vehicles Carhook polls');
  vehicles
    .command('list')
    .description('every vehicle of every enrollment: VIN, enrollment, polling, last change')
    .action(async (_o: unknown, command: Command) => {
      const enrollments = await allPages(command, 'GET /enrollments', (p) => p.enrollments);
      const rows: { vehicle: Vehicle; enrollment: string; status: string }[] = [];
      for (const e of enrollments) {
        const detail = await call(command, 'GET /enrollments/{id}', { params: { id: e.id } });
        for (const v of detail.body.vehicles) rows.push({ vehicle: v, enrollment: e.id, status: e.status });
      }
      show(command, { vehicles: rows }, () =>
        table([
          ['VEHICLE', 'VIN', 'ENROLLMENT', 'POLLING', 'LAST CHANGE'],
          ...rows.map((r) => [
            r.vehicle.id,
            r.vehicle.vin,
            `${r.enrollment} (${r.status})`,
            r.vehicle.paused ? `paused (${str(r.vehicle.pauseReason)})` : 'active',
            str(r.vehicle.lastChangeAt),
          ]),
        ]),
      );
    });
  vehicles
    .command('get')
    .description(
      'one vehicle: connection, last and next read of each kind, learned change rate, quota, recent events',
    )
    .argument('<id>', 'vehicle id (carhook vehicles list)')
    .action(async (id: string, _o: unknown, command: Command) => {
      const r = await call(command, 'GET /vehicles/{id}', { params: { id } });
      show(command, r.body, () => vehicleLines(r.body));
    });
  for (const action of ['pause', 'resume'] as const) {
    vehicles
      .command(action)
      .description(
        action === 'pause' ? 'stop polling a vehicle until it is resumed' : 'poll a paused vehicle again',
      )
      .argument('<id>', 'vehicle id')
      .action(async (id: string, _o: unknown, command: Command) => {
        const r = await call(command, `POST /vehicles/{id}/${action}`, { params: { id } });
        show(
          command,
          r.body,
          () =>
            `${action === 'pause' ? 'paused' : 'resumed'} ${id}: ${r.body.paused ? `paused (${str(r.body.pauseReason)})` : 'polled'}`,
        );
      });
  }
}
