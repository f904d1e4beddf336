import type { EventEnvelope } from '../events/envelope';
import type { DeliveryEngine, DeliveryEngineDeps, DeliveryJob } from './contract';
import { fanOut } from './fan-out';
import { enqueueRecovery, enqueueReplay, handleJob, resume, sendSample, sendTest, sweep } from './jobs';
import { createEngineState } from './state';

// The delivery engine: one explicit state (state.ts) and the functions of it, by responsibility:
// fan-out.ts (bus event → deliveries, first attempts direct), direct.ts (a first attempt before any
// write, and its hold), attempt.ts (one attempt, the policy's decision, what follows it),
// recording.ts (group commit of direct outcomes), operational.ts (webhook.* events), jobs.ts (queue
// worker, test sends, replay, resume, sweep). The public contract is contract.ts.

// The public contract, as the engine's importers know it.
export * from './contract';

export function createDeliveryEngine(deps: DeliveryEngineDeps): DeliveryEngine {
  const state = createEngineState(deps);
  return {
    limiter: state.limiter,
    fanOut: (event) => fanOut(state, event),
    handleJob: (job) => handleJob(state, job),
    sendTest: (subscription) => sendTest(state, subscription),
    sendSample: (subscription, sample) => sendSample(state, subscription, sample),
    enqueueReplay: (subscription, events, runId) => enqueueReplay(state, subscription, events, runId),
    enqueueRecovery: (subscription, events) => enqueueRecovery(state, subscription, events),
    resume: (subscriptionId) => resume(state, subscriptionId),
    sweep: (options) => sweep(state, options),
  };
}

/** The local runtime's bus subscriber: `localBus.subscribe(fanOutSubscriber(engine), {name: 'webhooks'})`. */
export function fanOutSubscriber(engine: Pick<DeliveryEngine, 'fanOut'>) {
  // Resolves once every delivery is durable (its first attempt's outcome recorded, or, for an attempt
  // outliving the hold, its claimed record written); a failure to write rejects, so the bus keeps the
  // event for a retry. A slow endpoint holds the bus for the hold at most (README "The hold").
  return async (event: EventEnvelope): Promise<void> => {
    await engine.fanOut(event);
  };
}

/** The `deliveries` queue handler for `runConsumer` / the SQS Lambda (`parse: parseDeliveryJob`). */
export function deliveryJobHandler(engine: Pick<DeliveryEngine, 'handleJob'>) {
  return (job: DeliveryJob) => engine.handleJob(job);
}
