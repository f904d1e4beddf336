/**
 * `carhook vehicles state <id>`: the latest known state of a vehicle (GET /vehicles/{id}/state),
 * from what Carhook stores, without a request to the API.
 */
import type { Command } from 'commander';
import { call, type Json, show, str, table } from './common';

const ago = (iso: unknown, now: number): string => {
  if (typeof iso !== 'string') return '-';
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 120) return `${iso} (${s} s ago)`;
  if (s < 7200) return `${iso} (${Math.round(s / 60)} min ago)`;
  return `${iso} (${Math.round(s / 3600)} h ago)`;
};

/** The human view: one line per part, each with when it was read. */
export function vehicleStateText(body: Json, now: number): string {
  const vehicle = (body.vehicle ?? {}) as Json;
  const lines = [
    `vehicle ${str(vehicle.id)} (VIN ${str(vehicle.vin)}), events up to sequence ${str(body.sequence)}`,
  ];
  if (body.polled !== true) return `${lines[0]}\n  not polled yet: nothing known`;
  const alerts = (body.activeAlerts ?? []) as Json[];
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
  const m = body.maintenance as Json | undefined;
  lines.push(
    m
      ? `  maintenance     ${str(m.days)} days / ${str(m.mileageKm)} km left, read ${ago(m.readAt, now)}`
      : '  maintenance     unknown',
  );
  const trip = body.lastTrip as Json | undefined;
  const td = (trip?.data ?? {}) as Json;
  lines.push(
    trip
      ? `  last trip       ${str(td.tripId)} ended ${str(td.stoppedAt ?? trip.occurredAt)}${td.distanceKm !== undefined ? `, ${str(td.distanceKm)} km` : ''}, read ${ago(trip.readAt, now)}`
      : '  last trip       unknown',
  );
  const collision = body.lastCollision as Json | undefined;
  lines.push(
    collision
      ? `  last collision  ${str((collision.data as Json).maxLevel)} at ${str(collision.occurredAt)}, read ${ago(collision.readAt, now)}`
      : '  last collision  none known',
  );
  const p = body.position as Json | undefined;
  lines.push(
    p
      ? `  position        ${str(p.lat)}, ${str(p.lon)} at ${str(p.at)} (${str(p.from)}), read ${ago(p.readAt, now)}`
      : '  position        unknown',
  );
  const f = body.fuel as Json | undefined;
  lines.push(
    f
      ? `  fuel            ${str(f.level)} % at ${str(f.at)}, read ${ago(f.readAt, now)}`
      : '  fuel            unknown',
  );
  if (body.lastActivityAt !== undefined) lines.push(`  last activity   ${ago(body.lastActivityAt, now)}`);
  return lines.join('\n');
}

export function addVehicleCommands(program: Command): void {
  const vehicles = program.command('vehicles').description('vehicles');
  vehicles
    .command('state')
    .description('the latest known state of a vehicle, from what Carhook stores (no request to the API)')
    .argument('<id>', 'vehicle id (as in `enrollments get`)')
    .action(async (id: string, _o: unknown, command: Command) => {
      const r = await call(command, 'GET', `/vehicles/${encodeURIComponent(id)}/state`);
      show(command, r.body, () => vehicleStateText(r.body as Json, Date.now()));
    });
}
