import type { KeyRingProvider } from '../../core/crypto/token-cipher';

/**
 * The secrets of a Carhook deployment: Secrets Manager on AWS
 * (./secrets-manager.ts), environment or file locally (./local.ts). Values are never logged:
 * errors carry the secret's name or ARN and the field, never a value.
 */
export interface ApiClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

/** HTTP basic credentials of the map update API. */
export interface MapApiCredentials {
  readonly username: string;
  readonly password: string;
}

export interface CarhookSecrets {
  /** Rejects with `SecretError` (`SecretBlank` when not set yet): polling must not start without it. */
  apiClient(): Promise<ApiClientCredentials>;
  /** Undefined when the secret is absent or blank: map update polling is skipped. */
  mapApi(): Promise<MapApiCredentials | undefined>;
  /** The token encryption key ring (`{"current":"k1","k1":"<base64>"}` or `{current, keys}`). */
  readonly keyRing: KeyRingProvider;
}

export type SecretErrorKind = 'SecretUnavailable' | 'SecretMalformed' | 'SecretBlank';

export class SecretError extends Error {
  override readonly name = 'SecretError';
  constructor(
    readonly kind: SecretErrorKind,
    /** The secret's ARN, name, variable or file: what a person must fix. */
    readonly secret: string,
    message: string,
  ) {
    super(message);
  }
}

/** `{"clientId","clientSecret"}`; both blank → `SecretBlank` naming the secret and how to set it. */
export function parseApiClientCredentials(secret: string, text: string | undefined): ApiClientCredentials {
  const fields = parseObject(secret, text);
  const clientId = stringField(secret, fields, 'clientId');
  const clientSecret = stringField(secret, fields, 'clientSecret');
  if (clientId === '' || clientSecret === '') {
    throw new SecretError(
      'SecretBlank',
      secret,
      `${secret}: clientId and clientSecret must be set before Carhook can poll ` +
        `(aws secretsmanager put-secret-value --secret-id ${secret} --secret-string '{"clientId":"…","clientSecret":"…"}')`,
    );
  }
  return { clientId, clientSecret };
}

/** `{"username","password"}`; blank (or no secret) → undefined. */
export function parseMapApiCredentials(
  secret: string,
  text: string | undefined,
): MapApiCredentials | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const fields = parseObject(secret, text);
  const username = stringField(secret, fields, 'username');
  const password = stringField(secret, fields, 'password');
  if (username === '' || password === '') return undefined;
  return { username, password };
}

function parseObject(secret: string, text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') {
    throw new SecretError('SecretBlank', secret, `${secret}: the secret has no value`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SecretError('SecretMalformed', secret, `${secret}: not valid JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new SecretError('SecretMalformed', secret, `${secret}: must be a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

function stringField(secret: string, fields: Record<string, unknown>, name: string): string {
  const value = fields[name];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') {
    throw new SecretError('SecretMalformed', secret, `${secret}: ${name} must be a string`);
  }
  return value.trim();
}
