/**
 * Micro-benchmark of the diff engine: diffs per second for a typical vehicle on this machine, one
 * core (target: ≥ 50,000/s in steady state, so the engine is never the bottleneck).
 *
 * Steady state = the common poll: the events list (`since` with overlap) returns a few events
 * already seen, the alert list returns the two alerts known active; nothing changed.
 * Run alone: `npx tsx bench/detection.ts`; `run()` returns the figures for bench/run.ts.
 */
import { fileURLToPath } from 'node:url';
import type { Alert, VehicleEvent } from '../functions/core/api/model';
import { type DiffContext, diff } from '../functions/core/detection/diff';
import type { Observation } from '../functions/core/detection/observations';
import type { VehicleState } from '../functions/core/detection/state';

const T0 = Date.parse('2026-11-22T08:00:00.000Z');
const iso = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

const context = (minutes: number): DiffContext => ({
  vehicle: { id: 'veh-bench', vin: 'VF3ABCDEFGH123456', brand: 'P' },
  enrollment: { id: 'enr-bench', kind: 'oauth-user' },
  now: new Date(T0 + minutes * 60_000),
});

const alerts: Alert[] = [
  {
    id: 'a1',
    active: true,
    message: 'alertOilPressure',
    severity: 'high',
    startedAt: iso(1),
    updatedAt: iso(1),
  },
  {
    id: 'a2',
    active: true,
    message: 'underInflationTyreFault',
    severity: 'medium',
    startedAt: iso(2),
    updatedAt: iso(2),
  },
];

const events: VehicleEvent[] = [
  { id: 'e1', type: 'ALERT', eventId: 'a1', createdAt: iso(1), alert: alerts[0] as Alert },
  {
    id: 'e2',
    type: 'COLLISION',
    eventId: 'c1',
    createdAt: iso(3),
    collision: {
      id: 'c1',
      rollOver: false,
      pedestrian: false,
      front: 'low',
      rear: 'none',
      lateral: 'none',
      createdAt: iso(3),
    },
  },
  { id: 'e3', type: 'REFUEL', eventId: 'r1', createdAt: iso(4), record: { fuelLevel: 90 } },
  {
    id: 'e4',
    type: 'TRIP',
    eventId: 't1',
    createdAt: iso(5),
    trip: { id: 't1', startedAt: iso(-15), stoppedAt: iso(5), distanceKm: 12.5, durationS: 1200 },
  },
];

const poll = (minute: number): Observation[] => [
  { source: 'v2.events', fetchedAt: iso(minute), complete: true, window: { since: iso(-5) }, items: events },
  { source: 'v2.alerts', fetchedAt: iso(minute), complete: true, items: alerts },
];

/**
 * Throughput per CPU second of this process (user + system), not wall time: the machine is shared
 * and often loaded, and a diff is pure CPU work, so CPU time is what "one core" means here.
 */
const measure = (label: string, state: VehicleState, observations: Observation[], ctx: DiffContext) => {
  // Warm up the JIT, then time enough iterations to get past timer resolution.
  for (let i = 0; i < 20_000; i += 1) diff(state, observations, ctx);
  let iterations = 0;
  const wallStart = performance.now();
  const cpuStart = process.cpuUsage();
  let cpuMs = 0;
  while (cpuMs < 1_500) {
    for (let i = 0; i < 5_000; i += 1) diff(state, observations, ctx);
    iterations += 5_000;
    const used = process.cpuUsage(cpuStart);
    cpuMs = (used.user + used.system) / 1000;
  }
  const wallMs = performance.now() - wallStart;
  const perSecond = Math.round((iterations / cpuMs) * 1000);
  return {
    label,
    iterations,
    cpuMs: Math.round(cpuMs),
    wallMs: Math.round(wallMs),
    diffsPerSecond: perSecond,
    wallDiffsPerSecond: Math.round((iterations / wallMs) * 1000),
    microsPerDiff: (1000 / perSecond) * 1000,
  };
};

export const run = () => {
  // Build the steady state: first poll (baseline), then one with the same data.
  let state = diff(undefined, poll(10), { ...context(10), config: { ecoDrivingWaitMs: 0 } }).state;
  state = diff(state, poll(11), context(11)).state;
  const steady = measure(
    'steady state (events ×4 seen, 2 active alerts, no change)',
    state,
    poll(12),
    context(12),
  );
  const news = measure(
    'poll with news (1 alert fixed: event id + state copy)',
    state,
    [{ source: 'v2.alerts', fetchedAt: iso(12), complete: true, items: [alerts[0] as Alert] }],
    context(12),
  );
  return { steady, news, target: 50_000, meetsTarget: steady.diffsPerSecond >= 50_000 };
};

const row = (r: ReturnType<typeof run>['steady']) =>
  `| detection: ${r.label} | ${r.diffsPerSecond.toLocaleString('en-US')} diffs/CPU-s | ${r.microsPerDiff.toFixed(2)} µs/diff | ${r.wallDiffsPerSecond.toLocaleString('en-US')} diffs/wall-s | ${r.iterations.toLocaleString('en-US')} iterations |`;

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const r = run();
  console.log('| benchmark | throughput (one core) | CPU time per diff | wall-clock throughput | sample |');
  console.log('|---|---|---|---|---|');
  console.log(row(r.steady));
  console.log(row(r.news));
  console.log(
    `target ≥ ${r.target.toLocaleString('en-US')} diffs/s (steady state): ${r.meetsTarget ? 'met' : 'NOT met'}`,
  );
}
