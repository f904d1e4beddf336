export {
  createTokenManager,
  DEFAULT_TOKEN_MANAGER_CONFIG,
  type EnrollmentTokenProvider,
  LOST_REFRESH_ANSWER,
  reauthorizationEvent,
  refreshAttemptName,
  refreshLeaseName,
  type TokenManager,
  type TokenManagerConfig,
  type TokenManagerDeps,
  type TokenOutcome,
} from './token-manager';
