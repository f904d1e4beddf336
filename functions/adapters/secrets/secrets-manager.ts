import type { GetSecretValueCommand, GetSecretValueCommandOutput } from '@aws-sdk/client-secrets-manager';
import { type KeyRing, keyRingFromJson, TokenCipherError } from '../../core/crypto/token-cipher';
import {
  type ApiClientCredentials,
  type CarhookSecrets,
  type MapApiCredentials,
  parseApiClientCredentials,
  parseMapApiCredentials,
  SecretError,
} from './types';

/** What the adapter needs of a `SecretsManagerClient`; a fake `{ send }` serves in tests. */
export interface SecretsManagerClientLike {
  send(command: GetSecretValueCommand): Promise<GetSecretValueCommandOutput>;
}

export interface SecretsManagerSecretsOptions {
  readonly client: SecretsManagerClientLike;
  readonly apiClientSecretArn: string;
  readonly tokenKeyRingSecretArn: string;
  /** Absent: map update polling is skipped. */
  readonly mapApiSecretArn?: string;
  /**
   * How long a value is reused (default 5 min): one GetSecretValue per secret per warm container
   * and TTL, and a rotated key or newly set credentials are picked up within it.
   */
  readonly ttlMs?: number;
  readonly now?: () => number;
}

export const DEFAULT_SECRET_TTL_MS = 5 * 60_000;

/**
 * Secrets Manager as `CarhookSecrets`, with a small TTL cache per secret: concurrent readers share
 * one call, and when a refresh fails a previously read value is kept (a Secrets Manager blip does
 * not stop polling); without one the error names the secret.
 */
export function createSecretsManagerSecrets(options: SecretsManagerSecretsOptions): CarhookSecrets {
  const ttlMs = options.ttlMs ?? DEFAULT_SECRET_TTL_MS;
  const now = options.now ?? Date.now;

  const cached = <T>(arn: string, parse: (text: string | undefined) => T): (() => Promise<T>) => {
    let value: { readonly v: T; readonly at: number } | undefined;
    let inFlight: Promise<T> | undefined;
    return () => {
      if (value && now() - value.at < ttlMs) return Promise.resolve(value.v);
      inFlight ??= (async () => {
        try {
          const text = await readSecret(options.client, arn);
          const v = parse(text);
          value = { v, at: now() };
          return v;
        } catch (error) {
          // A value that parsed before is better than none when only the refresh failed.
          if (value && error instanceof SecretError && error.kind === 'SecretUnavailable') return value.v;
          throw error;
        } finally {
          inFlight = undefined;
        }
      })();
      return inFlight;
    };
  };

  const apiClient = cached<ApiClientCredentials>(options.apiClientSecretArn, (text) =>
    parseApiClientCredentials(options.apiClientSecretArn, text),
  );
  const mapArn = options.mapApiSecretArn;
  const mapApi = mapArn
    ? cached<MapApiCredentials | undefined>(mapArn, (text) => parseMapApiCredentials(mapArn, text))
    : async () => undefined;
  const keyRing = cached<KeyRing>(options.tokenKeyRingSecretArn, (text) =>
    parseKeyRing(options.tokenKeyRingSecretArn, text),
  );
  return { apiClient, mapApi, keyRing: { load: keyRing } };
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

type SecretsManagerSdk = typeof import('@aws-sdk/client-secrets-manager');
let sdk: Promise<SecretsManagerSdk> | undefined;
/** Loaded on the first read, not at import (issue 7: cold start); a failed load is tried again. */
const loadSdk = (): Promise<SecretsManagerSdk> =>
  (sdk ??= import('@aws-sdk/client-secrets-manager').catch((error: unknown) => {
    sdk = undefined;
    throw error;
  }));

async function readSecret(client: SecretsManagerClientLike, arn: string): Promise<string | undefined> {
  let output: GetSecretValueCommandOutput;
  try {
    const { GetSecretValueCommand } = await loadSdk();
    output = await client.send(new GetSecretValueCommand({ SecretId: arn }));
  } catch (error) {
    const name = (error as { name?: unknown })?.name;
    const why = typeof name === 'string' ? name : 'request failed';
    throw new SecretError(
      'SecretUnavailable',
      arn,
      `${arn}: GetSecretValue failed (${why}); check the ARN and the function's secretsmanager:GetSecretValue grant`,
    );
  }
  if (output.SecretString !== undefined) return output.SecretString;
  if (output.SecretBinary !== undefined) return Buffer.from(output.SecretBinary).toString('utf8');
  return undefined;
}
