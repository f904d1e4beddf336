/**
 * `carhook vehicles …`: the vehicles Carhook polls (list), one in full (get: connection, the last and
 * next read of each kind, learned change rate, share of the quota, recent events), pause and resume,
 * and its latest known state (state: GET /vehicles/{id}/state, from what Carhook stores, without a
 * request to the API).
 */
import type { Command } from 'commander';
import type { Vehicle, VehicleDetail } from '../../functions/http/contract';
import type { VehicleState } from '../../functions/http/state-contract';
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

const ago = (iso: unknown, now: number): string => {
  if (typeof iso !== 'string') return '-';
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 120) return `${iso} (${s} s ago)`;
  if (s < 7200) return `${iso} (${Math.round(s / 60)} min ago)`;
  return `${iso} (${Math.round(s / 3600)} h ago)`;
};

/** The human view: one line per part, each with when it was read. */
export function vehicleStateText(body: VehicleState, now: number): string {
  const vehicle = body.vehicle;
  const lines = [
    `vehicle ${str(vehicle.id)} (VIN ${str(vehicle.vin)}), events up to sequence ${str(body.sequence)}`,
  ];
  if (body.polled !== true) return `${lines[0]}\n  not polled yet: nothing known`;
  const alerts = body.activeAlerts;
  lines.push(
    alerts.length === 0
      ? '  active alerts   none'
      : table([
          ['  active alert', 'severity', 'since', 'read'],
          ...alerts.map((a) => [
            `  ${str(a.message)}`,
            str(a.severity ?? '-'),
            str(a.startedAt ?? '-'),
            str(a.readAt),
          ]),
        ]),
  );
  const m = body.maintenance;
  lines.push(
    m
      ? `  maintenance     ${str(m.days)} days / ${str(m.mileageKm)} km left, read ${ago(m.readAt, now)}`
      : '  maintenance     unknown',
  );
  const trip = body.lastTrip;
  const td = trip?.data ?? {};
  lines.push(
    trip
      ? `  last trip       ${str(td.tripId)} ended ${str(td.stoppedAt ?? trip.occurredAt)}${td.distanceKm !== undefined ? `, ${str(td.distanceKm)} km` : ''}, read ${ago(trip.readAt, now)}`
      : '  last trip       unknown',
  );
  const collision = body.lastCollision;
  lines.push(
    collision
      ? `  last collision  ${str(collision.data.maxLevel)} at ${str(collision.occurredAt)}, read ${ago(collision.readAt, now)}`
      : '  last collision  none known',
  );
  const p = body.position;
  lines.push(
    p
      ? `  position        ${str(p.lat)}, ${str(p.lon)} at ${str(p.at)} (${str(p.from)}), read ${ago(p.readAt, now)}`
      : '  position        unknown',
  );
  const f = body.fuel;
  lines.push(
    f
      ? `  fuel            ${str(f.level)} % at ${str(f.at)}, read ${ago(f.readAt, now)}`
      : '  fuel            unknown',
  );
  if (body.lastActivityAt !== undefined) lines.push(`  last activity   ${ago(body.lastActivityAt, now)}`);
  return lines.join('\n');
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
  vehicles
    .command('state')
    .description('the latest known state of a vehicle, from what Carhook stores (no request to the API)')
    .argument('<id>', 'vehicle id (carhook vehicles list)')
    .action(async (id: string, _o: unknown, command: Command) => {
      const r = await call(command, 'GET /vehicles/{id}/state', { params: { id } });
      show(command, r.body, () => vehicleStateText(r.body, Date.now()));
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
