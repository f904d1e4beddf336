/**
 * The local stand-in for EventBridge Scheduler: runs a piece of work every `ms`, never two runs of
 * it at once, and says once when a run is long overdue (a run that never settles would otherwise
 * stop the loop without a word). `stop()` clears the timers and waits for the runs in flight.
 */
import type { Writer } from './options';

export interface Every {
  every(ms: number, name: string, work: () => Promise<unknown>): void;
  stop(): Promise<void>;
}

export function createTimers(err: Writer | null, now: () => number = Date.now): Every {
  const timers: NodeJS.Timeout[] = [];
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  return {
    every(ms, name, work) {
      let busy = false;
      let since = 0;
      let warned = false;
      const stuckAfterMs = Math.max(30_000, 10 * ms);
      const tick = () => {
        if (stopped) return;
        if (busy) {
          // A slow run is never overlapped by the next.
          if (!warned && now() - since > stuckAfterMs) {
            warned = true;
            err?.write(
              `carhook: ${name} still running after ${Math.round((now() - since) / 1000)} s; its next runs wait for it\n`,
            );
          }
          return;
        }
        busy = true;
        since = now();
        warned = false;
        const run = work()
          .catch((error: unknown) =>
            err?.write(`carhook: ${name} failed: ${(error as Error)?.message ?? String(error)}\n`),
          )
          .finally(() => {
            busy = false;
          });
        running = Promise.all([running, run]);
      };
      tick();
      timers.push(setInterval(tick, ms));
    },
    async stop() {
      stopped = true;
      for (const timer of timers) clearInterval(timer);
      await running;
    },
  };
}
