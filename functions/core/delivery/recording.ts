import type { RecordedAttempt } from '../subscriptions/ports';
import { DeliveryError } from './contract';
import type { EngineState } from './state';

// Group commit of direct attempts' outcomes: while `recordConcurrency` writes are out, outcomes
// wait and leave together (up to RECORD_BATCH per write), so under load one BatchWriteItem carries
// many deliveries, and alone an outcome is written at once (no timer, no added latency).

/** Outcomes per `recordAttempts` call: 2 items each, so one 25-item BatchWriteItem. */
const RECORD_BATCH = 12;

function pumpRecords(state: EngineState): void {
  while (state.recording < state.recordConcurrency && state.recordLine.length > 0) {
    const batch = state.recordLine.splice(0, RECORD_BATCH);
    state.recording++;
    state.deps.deliveries
      .recordAttempts(batch.map((b) => b.entry))
      .then(
        ({ failed }) => {
          const lost = new Set(failed);
          for (const b of batch) {
            const id = b.entry.delivery.id;
            if (!lost.has(id)) b.resolve();
            else
              b.reject(
                new DeliveryError('StoreFailure', `delivery ${id}: its attempt could not be recorded`, {
                  deliveryId: id,
                  subscriptionId: b.entry.delivery.subscriptionId,
                }),
              );
          }
        },
        (error: unknown) => {
          for (const b of batch) b.reject(error);
        },
      )
      .finally(() => {
        state.recording--;
        pumpRecords(state);
      });
  }
}

/** Resolves when the outcome is written; rejects when its write failed. */
export function recordAttempt(state: EngineState, entry: RecordedAttempt): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    state.recordLine.push({ entry, resolve, reject });
    pumpRecords(state);
  });
}
