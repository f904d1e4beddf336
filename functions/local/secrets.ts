/**
 * Where the local runtime's secrets come from: the simulator's client (its credentials are known),
 * or for a real API a JSON file or an environment variable; the token key ring from `local.json`.
 */
import { createLocalSecrets, LOCAL_SECRET_ENV, type LocalSecretSource } from '../adapters/secrets/local';
import { parseKeyRing } from '../adapters/secrets/secrets-manager';
import type { CarhookSecrets } from '../adapters/secrets/types';
import { LocalRuntimeError } from './errors';
import type { RealApiOptions } from './options';

type Env = Readonly<Record<string, string | undefined>>;

function apiCredentialsSource(api: RealApiOptions): LocalSecretSource {
  return api.credentialsFile
    ? { kind: 'file', path: api.credentialsFile }
    : { kind: 'env', variable: LOCAL_SECRET_ENV.apiClient };
}

/** Where the real map API's credentials come from, or undefined: map updates are then not polled. */
export function mapCredentialsSource(api: RealApiOptions, env: Env): LocalSecretSource | undefined {
  if (api.mapCredentialsFile) return { kind: 'file', path: api.mapCredentialsFile };
  const value = env[LOCAL_SECRET_ENV.mapApi];
  return value !== undefined && value.trim() !== ''
    ? { kind: 'env', variable: LOCAL_SECRET_ENV.mapApi }
    : undefined;
}

/** What the banner says of the map API. */
export function describeMapSource(source: LocalSecretSource | undefined): string {
  if (!source) return `not polled: no credentials (--map-credentials <file> or ${LOCAL_SECRET_ENV.mapApi})`;
  return source.kind === 'file'
    ? `credentials from ${source.path}`
    : `credentials from ${LOCAL_SECRET_ENV.mapApi}`;
}

/** Reads the real API's credentials now: a missing one is a start-up message, not a failure on every poll. */
export async function checkApiCredentials(api: RealApiOptions, env: Env): Promise<void> {
  await createLocalSecrets({
    env,
    apiClient: apiCredentialsSource(api),
    keyRing: { kind: 'value', json: '{}' },
  })
    .apiClient()
    .catch((error: unknown) => {
      throw new LocalRuntimeError(
        'Config',
        `API credentials: ${(error as Error).message} (set ${LOCAL_SECRET_ENV.apiClient}='{"clientId":"…","clientSecret":"…"}' or pass --api-credentials <file>)`,
        'apiCredentials',
      );
    });
}

export type SecretsFrom =
  | { readonly kind: 'simulator'; readonly clientId: string; readonly clientSecret: string }
  | { readonly kind: 'api'; readonly api: RealApiOptions; readonly env: Env };

/** The runtime's secrets port; the key ring is parsed once, so the runtime's cipher is built once. */
export function localSecrets(from: SecretsFrom, keyRingJson: string): CarhookSecrets {
  const keyRing = parseKeyRing('local key ring', keyRingJson);
  const ring = { kind: 'value', json: keyRingJson } as const;
  const secrets =
    from.kind === 'simulator'
      ? createLocalSecrets({
          apiClient: {
            kind: 'value',
            name: 'simulator client',
            json: JSON.stringify({ clientId: from.clientId, clientSecret: from.clientSecret }),
          },
          keyRing: ring,
          // The simulator's map API takes its client's credentials.
          mapApi: {
            kind: 'value',
            name: 'simulator map client',
            json: JSON.stringify({ username: from.clientId, password: from.clientSecret }),
          },
        })
      : createLocalSecrets({
          env: from.env,
          apiClient: apiCredentialsSource(from.api),
          keyRing: ring,
          mapApi: mapCredentialsSource(from.api, from.env),
        });
  return { apiClient: secrets.apiClient, mapApi: secrets.mapApi, keyRing: { load: async () => keyRing } };
}
