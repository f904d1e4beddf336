/**
 * The planning cost the freshness benchmark reports beside its runs: `plan()` alone over a
 * synthetic fleet, in CPU time of this process (the machine is shared, wall time would measure
 * the neighbours).
 */
import { createPlannerMemory, plan } from '../../functions/core/polling';
import type { VehicleRecord } from '../../functions/core/store/records';
import { percentile, round } from './stats';

const MINUTE = 60_000;

/**
 * CPU milliseconds `fn` took (user + system of this process): the machine is shared, so wall time
 * would measure the neighbours; the planner is synchronous, so its CPU time is its cost on one core.
 */
export function cpuMs(fn: () => void): number {
  const before = process.cpuUsage();
  fn();
  const d = process.cpuUsage(before);
  return (d.user + d.system) / 1000;
}

/** p99 of `plan()` over a synthetic fleet of `n` vehicles with learned rates (CPU ms). */
export function planTiming(n: number, cycles: number): number {
  const now = Date.UTC(2026, 0, 5, 12);
  const iso = (ms: number): string => new Date(ms).toISOString();
  const vehicles: VehicleRecord[] = Array.from({ length: n }, (_, i) => ({
    id: `enr-${i % 50}:veh-${i}`,
    enrollmentId: `enr-${i % 50}`,
    vin: `VIN${String(i).padStart(14, '0')}`,
    apiVehicleId: `veh-${i}`,
    paused: false,
    nextPollAt: iso(now - MINUTE),
    hints: {
      activeAlerts: i % 7 === 0,
      priority: 0,
      rates: `r1:${now - 3_600_000}:${(i % 13) / 3}:${3 + (i % 5)}:${i % 3}:${i % 4}:${i % 7 === 0 ? 1 : 0}`,
    },
    resourcePolledAt: {
      alerts: iso(now - 3_600_000),
      maintenance: iso(now - 3_600_000),
      services: iso(now - 3_600_000),
      map: iso(now - 3_600_000),
    },
    createdAt: iso(now - 86_400_000),
    updatedAt: iso(now - MINUTE),
  }));
  const memory = createPlannerMemory();
  const times: number[] = [];
  const warm = 5; // JIT warm-up cycles, not measured
  for (let c = 0; c < cycles + warm; c++) {
    const at = now + c * MINUTE;
    let planned: ReturnType<typeof plan> | undefined;
    times.push(
      cpuMs(() => {
        planned = plan({ vehicles, budget: 108, now: at, memory });
      }),
    );
    if (c < warm) times.pop();
    if (!planned) continue;
    for (const job of planned.jobs) {
      if (job.kind === 'poll-vehicle') {
        memory.set(job.vehicleId, {
          ...memory.get(job.vehicleId),
          ...(job.resources.includes('events') ? { events: at } : {}),
          ...(job.resources.includes('alerts') ? { alerts: at } : {}),
        });
      }
    }
  }
  return round(
    percentile(
      [...times].sort((a, b) => a - b),
      99,
    ),
    1,
  );
}
