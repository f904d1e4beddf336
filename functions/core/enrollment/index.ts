export {
  applyVehicleList,
  type DiscoveryDeps,
  type DiscoveryResult,
  ENROLLMENT_STATE_FORMAT,
  enrollmentStateKey,
  syncVehicleList,
} from './discovery';
export {
  brandNameOf,
  type EnrollFleetResult,
  enrollFleetContract,
  type FleetEnrollmentInput,
  fleetContractSchema,
  validateFleetInput,
} from './fleet';
export {
  type CompleteAuthorizationResult,
  completeAuthorization,
  DEFAULT_STATE_TTL_MS,
  enrollmentIdOf,
  type InvalidAuthorizationRequest,
  type OAuthEnrollmentDeps,
  type StartAuthorizationResult,
  startAuthorization,
} from './oauth';
export {
  codeChallengeOf,
  codeVerifierFor,
  type InvalidState,
  type InvalidStateReason,
  requireStateKey,
  StateKeyError,
  type StatePayload,
  signState,
  verifyState,
} from './oauth-state';
export { unenrollEnrollment } from './unenroll';
