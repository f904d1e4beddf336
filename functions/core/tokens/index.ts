export {
  createTokenManager,
  DEFAULT_TOKEN_MANAGER_CONFIG,
  type EnrollmentTokenProvider,
  reauthorizationEvent,
  refreshLeaseName,
  type TokenManager,
  type TokenManagerConfig,
  type TokenManagerDeps,
  type TokenOutcome,
} from './token-manager';
