import { readFile } from 'node:fs/promises';
import type { KeyRing } from '../../core/crypto/token-cipher';
import { parseKeyRing } from './secrets-manager';
import {
  type ApiClientCredentials,
  type CarhookSecrets,
  type MapApiCredentials,
  parseApiClientCredentials,
  parseMapApiCredentials,
  SecretError,
} from './types';

/** Variables of the local runtime (each holds the same JSON as the Secrets Manager secret). */
export const LOCAL_SECRET_ENV = {
  apiClient: 'CARHOOK_API_CLIENT',
  mapApi: 'CARHOOK_MAP_API',
  keyRing: 'CARHOOK_TOKEN_KEYS',
} as const;

/**
 * Where a local secret comes from: a literal JSON value, an environment variable, or a file
 * (e.g. `.carhook/secrets/api-client.json`). Read on every call: a local edit applies at once.
 */
export type LocalSecretSource =
  | { readonly kind: 'value'; readonly json: string; readonly name?: string }
  | { readonly kind: 'env'; readonly variable: string }
  | { readonly kind: 'file'; readonly path: string };

export interface LocalSecretsOptions {
  readonly apiClient: LocalSecretSource;
  readonly keyRing: LocalSecretSource;
  readonly mapApi?: LocalSecretSource;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

const nameOf = (source: LocalSecretSource): string =>
  source.kind === 'value'
    ? (source.name ?? 'local secret')
    : source.kind === 'env'
      ? source.variable
      : source.path;

async function readSource(
  source: LocalSecretSource,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string | undefined> {
  switch (source.kind) {
    case 'value':
      return source.json;
    case 'env':
      return env[source.variable];
    case 'file':
      try {
        return await readFile(source.path, 'utf8');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
        if (code === 'ENOENT') return undefined;
        throw new SecretError('SecretUnavailable', source.path, `${source.path}: cannot read (${code})`);
      }
  }
}

/** The local runtime's secrets: the same JSON shapes as on AWS, from values, env or files. */
export function createLocalSecrets(options: LocalSecretsOptions): CarhookSecrets {
  const env = options.env ?? process.env;
  return {
    apiClient: async (): Promise<ApiClientCredentials> =>
      parseApiClientCredentials(nameOf(options.apiClient), await readSource(options.apiClient, env)),
    mapApi: async (): Promise<MapApiCredentials | undefined> => {
      if (!options.mapApi) return undefined;
      return parseMapApiCredentials(nameOf(options.mapApi), await readSource(options.mapApi, env));
    },
    keyRing: {
      load: async (): Promise<KeyRing> =>
        parseKeyRing(nameOf(options.keyRing), await readSource(options.keyRing, env)),
    },
  };
}

/** Secrets from `CARHOOK_API_CLIENT`, `CARHOOK_TOKEN_KEYS` and `CARHOOK_MAP_API`. */
export function localSecretsFromEnv(env: Readonly<Record<string, string | undefined>> = process.env) {
  return createLocalSecrets({
    env,
    apiClient: { kind: 'env', variable: LOCAL_SECRET_ENV.apiClient },
    keyRing: { kind: 'env', variable: LOCAL_SECRET_ENV.keyRing },
    mapApi: { kind: 'env', variable: LOCAL_SECRET_ENV.mapApi },
  });
}
