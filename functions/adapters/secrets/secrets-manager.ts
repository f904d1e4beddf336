import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { type KeyRing, keyRingFromJson, TokenCipherError } from '../../core/crypto/token-cipher';
import {
  type ApiClientCredentials,
  type CarhookSecrets,
  type MapApiCredentials,
  parseApiClientCredentials,
  parseMapApiCredentials,
  SecretError,
} from './types';

export interface SecretsManagerSecretsOptions {
  /**
   * The SDK client, or a function giving it on the first read. Powertools Parameters uses it as is
   * (it must be a real `SecretsManagerClient`: tests stub its `send`).
   */
  readonly client: SecretsManagerClient | (() => SecretsManagerClient);
  readonly apiClientSecretArn: string;
  readonly tokenKeyRingSecretArn: string;
  /** Absent: map update polling is skipped. */
  readonly mapApiSecretArn?: string;
  /**
   * How long a value is reused, in seconds (default 300): one GetSecretValue per secret per warm
   * container and period, and a rotated key or newly set credentials are picked up within it.
   */
  readonly maxAgeSeconds?: number;
}

export const DEFAULT_SECRET_MAX_AGE_SECONDS = 300;

/**
 * Secrets Manager as `CarhookSecrets` through Powertools Parameters: its `SecretsProvider` (what
 * `getSecret` uses, here on our configured client) fetches and caches each value for `maxAge`. When
 * a refresh fails, the last value that parsed is kept (a Secrets Manager blip does not stop
 * polling); without one the error names the secret.
 */
export function createSecretsManagerSecrets(options: SecretsManagerSecretsOptions): CarhookSecrets {
  const maxAge = options.maxAgeSeconds ?? DEFAULT_SECRET_MAX_AGE_SECONDS;
  let provider: SecretsProvider | undefined;
  const providerOf = (): SecretsProvider => {
    const client = typeof options.client === 'function' ? options.client() : options.client;
    provider ??= new SecretsProvider({ awsSdkV3Client: client });
    return provider;
  };

  const read = <T>(
    arn: string,
    parse: (text: string | undefined) => T,
  ): ((options?: { readonly fresh?: boolean }) => Promise<T>) => {
    let lastGood: { readonly v: T } | undefined;
    return async (options) => {
      let text: string | undefined;
      try {
        // forceFetch: Powertools skips its cache and stores what GetSecretValue answers.
        const value = await providerOf().get(arn, {
          maxAge,
          ...(options?.fresh ? { forceFetch: true } : {}),
        });
        text = value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : value;
      } catch (error) {
        // A value that parsed before is better than none when only the refresh failed.
        if (lastGood) return lastGood.v;
        throw unavailable(arn, error);
      }
      const v = parse(text);
      lastGood = { v };
      return v;
    };
  };

  const apiClient = read<ApiClientCredentials>(options.apiClientSecretArn, (text) =>
    parseApiClientCredentials(options.apiClientSecretArn, text),
  );
  const mapArn = options.mapApiSecretArn;
  const mapApi = mapArn
    ? read<MapApiCredentials | undefined>(mapArn, (text) => parseMapApiCredentials(mapArn, text))
    : async () => undefined;
  const keyRing = read<KeyRing>(options.tokenKeyRingSecretArn, (text) =>
    parseKeyRing(options.tokenKeyRingSecretArn, text),
  );
  return { apiClient: () => apiClient(), mapApi: () => mapApi(), keyRing: { load: keyRing } };
}

/** Powertools wraps the SDK's error (`GetParameterError`, the SDK error as `cause`): named by the latter. */
function unavailable(arn: string, error: unknown): SecretError {
  const cause = (error as { cause?: { name?: unknown } } | undefined)?.cause;
  const name = typeof cause?.name === 'string' ? cause.name : (error as { name?: unknown })?.name;
  const why = typeof name === 'string' ? name : 'request failed';
  return new SecretError(
    'SecretUnavailable',
    arn,
    `${arn}: GetSecretValue failed (${why}); check the ARN and the function's secretsmanager:GetSecretValue grant`,
  );
}

/** The key ring JSON; a `TokenCipherError` becomes a `SecretError` naming the secret. */
export function parseKeyRing(secret: string, text: string | undefined): KeyRing {
  if (text === undefined || text.trim() === '') {
    throw new SecretError('SecretBlank', secret, `${secret}: the token key ring secret has no value`);
  }
  try {
    return keyRingFromJson(text);
  } catch (error) {
    if (error instanceof TokenCipherError) {
      throw new SecretError('SecretMalformed', secret, `${secret}: ${error.message}`);
    }
    throw error;
  }
}
