export {
  type ApplyInput,
  type ApplyOutcome,
  applyObservations,
  eventLogMarker,
  type PublishTuning,
  publishCommitted,
  type RepublishDeps,
  republishPending,
} from './commit';
export {
  DEFAULT_POLLING_CONFIG,
  NAIVE_RESOURCES,
  type PollingConfig,
  type PollingConfigInput,
  type PollStrategy,
  parsePollingConfig,
  pollingConfig,
  pollStrategies,
  type VehicleResource,
  vehicleResources,
} from './config';
export {
  type DiscoverVehiclesJob,
  InvalidJobError,
  jobSchemas,
  type PollFleetJob,
  type PollJob,
  type PollMapJob,
  type PollVehicleJob,
  parsePollJob,
} from './jobs';
export {
  type ApiAccess,
  BudgetDeniedError,
  createMeteredClient,
  type MeteredClient,
  type MeteredClientOptions,
} from './metered-client';
export {
  createPlannerMemory,
  cycleBudget,
  FLEET_REQUESTS_PER_BATCH,
  followUpReserve,
  inCycle,
  isFleetVehicle,
  type LastReads,
  mapDue,
  type Plan,
  type PlanInput,
  type PlannerDeps,
  type PlannerMemory,
  type PlannerRun,
  plan,
  remember,
  runPlanner,
  splitResources,
} from './planner';
export { bulkWithSplit, type FleetDeps, type FleetPollSummary, pollFleet } from './poll-fleet';
export { type MapPollSummary, pollMap } from './poll-map';
export {
  type PollDeps,
  type PollOutcome,
  type PollSummary,
  pollVehicle,
  type ResourceFailure,
} from './poll-vehicle';
export {
  advance,
  decodeRates,
  encodeRates,
  fleetPrior,
  observe,
  posterior,
  type RatePrior,
  type RateState,
  type Rates,
  ratesAt,
} from './rates';
export { type ChosenRead, guaranteeMs, type ReadCandidate, selectReads, stableHash } from './selection';
