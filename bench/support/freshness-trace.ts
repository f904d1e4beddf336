/**
 * A trace of one freshness run, to find where a tail's lag is spent: one JSON line per vehicle
 * poll (simulated time, VIN, reads planned and made, outcome, requests the budget refused, what
 * it wrote, events), one per measured change (kind, VIN, made, told), and at the end each
 * vehicle's learned rates (`hints.rates`) beside its generated rate multiplier. Which read
 * revealed a change, and what held it, is then a matter of reading the polls of its VIN between
 * the two times. `--trace PREFIX` (bench/freshness.ts) writes PREFIX-<world>-<vehicles>-<strategy>.jsonl.
 */
import { writeFile } from 'node:fs/promises';
import type { JobResult } from '../../functions/core/jobs/worker';
import type { VehicleRecord } from '../../functions/core/store/records';
import type { MadeFreshnessChange } from './freshness-world';

export class FreshnessTrace {
  readonly #lines: string[] = [];

  /** One job of a cycle, as the worker summed it up. */
  poll(at: number, vin: string | undefined, planned: readonly string[], result: JobResult): void {
    if (result.kind !== 'poll-vehicle') return;
    const s = result.summary;
    this.#lines.push(
      JSON.stringify({
        at,
        vin,
        planned,
        done: s.resources,
        outcome: s.outcome,
        denied: s.denied,
        wrote: s.wrote,
        events: s.eventsWritten.length,
      }),
    );
  }

  /** The run's measured changes, and every vehicle's learned rates against its multiplier. */
  end(
    changes: readonly MadeFreshnessChange[],
    vehicles: readonly Pick<VehicleRecord, 'vin' | 'hints'>[],
    multiplierOf: ReadonlyMap<string, number>,
  ): void {
    for (const c of changes) {
      this.#lines.push(
        JSON.stringify({ change: c.kind, vin: c.vin, changedAt: c.changedAt, detectedAt: c.detectedAt }),
      );
    }
    for (const v of vehicles) {
      this.#lines.push(JSON.stringify({ rates: v.vin, r: v.hints.rates, m: multiplierOf.get(v.vin) }));
    }
  }

  async write(path: string): Promise<void> {
    await writeFile(path, `${this.#lines.join('\n')}\n`);
  }
}
