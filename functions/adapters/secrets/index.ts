export { createLocalSecrets, LOCAL_SECRET_ENV, type LocalSecretSource, localSecretsFromEnv } from './local';
export {
  createSecretsManagerSecrets,
  DEFAULT_SECRET_MAX_AGE_SECONDS,
  parseKeyRing,
} from './secrets-manager';
export * from './types';
