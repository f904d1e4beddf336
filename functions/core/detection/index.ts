export {
  DEFAULT_CONFIG,
  type DiffConfig,
  type DiffConfigInput,
  diffConfigSchema,
  parseDiffConfig,
} from './config';
export { type DiffContext, type DiffResult, diff, type PollHints } from './diff';
export {
  diffEnrollmentVehicles,
  type EnrollmentContext,
  type EnrollmentDiffResult,
  type EnrollmentState,
  emptyEnrollmentState,
  enrollmentStateSchema,
} from './enrollment';
export {
  DEFAULT_OPERATION,
  OBSERVATION_SOURCES,
  type Observation,
  type ObservationBase,
  type ObservationOf,
  type ObservationSource,
  type RejectedInput,
} from './observations';
export {
  initialState,
  parseState,
  STATE_FORMAT,
  serializeState,
  stateChanged,
  type VehicleState,
  vehicleStateSchema,
} from './state';
