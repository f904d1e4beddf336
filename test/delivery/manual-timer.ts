/**
 * A process timer for the delivery engine's tests: it moves only when the test says so, and runs
 * the timers due on the way in time order, letting every promise chain run in between.
 */
import type { ProcessTimer } from '../../functions/core/clock';

/** A process timer that only moves when the test advances it; timers run in time order. */
export function manualTimer() {
  let t = 0;
  let timers: { at: number; run: () => void }[] = [];
  const timer: ProcessTimer = {
    now: () => t,
    after: (ms, run) => {
      const entry = { at: t + ms, run };
      timers.push(entry);
      return () => {
        timers = timers.filter((x) => x !== entry);
      };
    },
  };
  return {
    timer,
    now: () => t,
    pending: () => timers.length,
    /** Moves process time to `to`, running each timer due on the way at its own time. */
    async advanceTo(to: number) {
      for (;;) {
        await settle();
        const due = timers.filter((x) => x.at <= to).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        timers = timers.filter((x) => x !== due);
        t = due.at;
        due.run();
      }
      t = to;
      await settle();
    },
  };
}

/** Lets every promise chain started so far run to its next real wait. */
export async function settle() {
  for (let i = 0; i < 5; i += 1) await new Promise((r) => setImmediate(r));
}
