/**
 * The local runtime's one port to the simulator: starting it in this process (with the persisted
 * world start time and seed) and the few facts the runtime needs from it. Everything else the
 * runtime does with the simulator goes through its HTTP API (the OAuth sign-in, the clock).
 */
import { BRANDS, type RunningSimulator, SimulatorStartError, startSimulator } from '../../sim';
import { LocalRuntimeError } from './errors';

export type { RunningSimulator };

/** Where a component writes its lines (process.stdout, a test's buffer). */
export type Writer = { write(chunk: string): unknown };

export interface LocalSimulatorOptions {
  readonly port: number;
  readonly host: string;
  /** The world's start time, kept in the data directory so a restart rebuilds the same world. */
  readonly startTime: number;
  readonly vehicles: number;
  readonly seed: number;
  /** Requests per 60 s, the same quota as Carhook's. */
  readonly quota: number;
  /**
   * `real` (default): the world's time follows the wall clock. `manual`: it moves only when
   * advanced (`simulatorClock(sim).advance`, or `POST /_sim/clock/advance`).
   */
  readonly clock?: 'real' | 'manual';
}

/** The OAuth path segment of every brand the simulator serves. */
export const SIMULATOR_BRAND_SEGMENTS: readonly string[] = Object.values(BRANDS).map((b) => b.authSegment);

/** Starts the simulator (its world advanced to wall time); a busy port is a `PortInUse`. */
export async function startLocalSimulator(
  options: LocalSimulatorOptions,
  now: number,
): Promise<RunningSimulator> {
  let sim: RunningSimulator;
  try {
    sim = await startSimulator({
      port: options.port,
      host: options.host,
      clock: options.clock ?? 'real',
      startTime: options.startTime,
      vehicles: options.vehicles,
      seed: options.seed,
      quota: { limit: options.quota, windowSeconds: 60 },
    });
  } catch (error) {
    if (error instanceof SimulatorStartError && error.code === 'EADDRINUSE') {
      throw new LocalRuntimeError(
        'PortInUse',
        `simulator port ${options.port} is already in use: choose another with --sim-port`,
        '--sim-port',
      );
    }
    throw new LocalRuntimeError('StartFailed', `the simulator did not start: ${(error as Error).message}`);
  }
  // Same seed and world start as the first run: the same world (ids included), now at wall time.
  try {
    const behind = now - sim.world.now();
    if (behind > 0) await simulatorClock(sim).advance(behind);
  } catch (error) {
    await sim.close();
    throw error;
  }
  return sim;
}

/** The simulator's world clock, as the local runtime reads and moves it on the simulated clock. */
export function simulatorClock(sim: RunningSimulator): {
  now: () => number;
  advance: (ms: number) => Promise<void>;
} {
  return {
    now: () => sim.world.now(),
    advance: async (ms) => {
      const res = await fetch(`${sim.url}/_sim/clock/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ms }),
      });
      if (!res.ok)
        throw new Error(`the simulator's clock did not advance: ${res.status} ${await res.text()}`);
    },
  };
}

/**
 * Enrolls every simulator user through the real OAuth code flow: our authorize route, the
 * simulator's sign-in page approved as the user, our callback with code and state. A user that
 * fails is reported and skipped.
 */
export async function enrollSimulatorUsers(
  apiUrl: string,
  sim: RunningSimulator,
  err: Writer | null,
): Promise<{ userId: string; enrollmentId: string }[]> {
  const enrolled: { userId: string; enrollmentId: string }[] = [];
  for (const user of sim.world.users()) {
    const segment = BRANDS[user.brand].authSegment;
    try {
      const authorize = await fetch(`${apiUrl}/oauth/${segment}/authorize`, { redirect: 'manual' });
      const signIn = authorize.headers.get('location');
      if (authorize.status !== 302 || !signIn) throw new Error(`authorize answered ${authorize.status}`);
      const approve = await fetch(signIn, {
        method: 'POST',
        body: new URLSearchParams({ user: user.id }),
        redirect: 'manual',
      });
      const callback = approve.headers.get('location');
      if (approve.status !== 302 || !callback) throw new Error(`sign-in answered ${approve.status}`);
      const done = await fetch(new URL(callback, apiUrl), { headers: { accept: 'application/json' } });
      const body = (await done.json()) as { enrollmentId?: string; error?: { message?: string } };
      if (done.status !== 200 || !body.enrollmentId)
        throw new Error(`callback answered ${done.status}: ${body.error?.message ?? ''}`);
      enrolled.push({ userId: user.id, enrollmentId: body.enrollmentId });
    } catch (error) {
      err?.write(`carhook: enrolling simulator user ${user.id} failed: ${(error as Error).message}\n`);
    }
  }
  return enrolled;
}
