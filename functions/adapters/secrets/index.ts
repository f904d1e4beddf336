export { createLocalSecrets, LOCAL_SECRET_ENV, type LocalSecretSource, localSecretsFromEnv } from './local';
export {
  createSecretsManagerSecrets,
  DEFAULT_SECRET_TTL_MS,
  parseKeyRing,
  type SecretsManagerClientLike,
} from './secrets-manager';
export * from './types';
