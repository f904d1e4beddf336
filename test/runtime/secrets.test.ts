import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InternalServiceError } from '@aws-sdk/client-secrets-manager';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createLocalSecrets,
  createSecretsManagerSecrets,
  localSecretsFromEnv,
  SecretError,
} from '../../functions/adapters/secrets';
import { createTokenCipher, createTokenSet, generateKey } from '../../functions/core/crypto/token-cipher';
import { stubbedSecretsManager } from '../support/secrets';

const API_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:carhook/api-client-AbCdEf';
const RING_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:carhook/token-keys-AbCdEf';
const MAP_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:carhook/map-AbCdEf';

/** The form the CDK stack generates: generateSecretString can only add a top-level field. */
const generatedRing = () => JSON.stringify({ current: 'k1', k1: generateKey() });
const blankCredentials = JSON.stringify({ clientId: '', clientSecret: '' });

describe('Secrets Manager secrets', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reads the client credentials, the map credentials and the generated key ring form', async () => {
    const sm = stubbedSecretsManager({
      [API_ARN]: JSON.stringify({ clientId: 'id', clientSecret: 'secret' }),
      [RING_ARN]: generatedRing(),
      [MAP_ARN]: JSON.stringify({ username: 'u', password: 'p' }),
    });
    const secrets = createSecretsManagerSecrets({
      client: sm.client,
      apiClientSecretArn: API_ARN,
      tokenKeyRingSecretArn: RING_ARN,
      mapApiSecretArn: MAP_ARN,
    });
    expect(await secrets.apiClient()).toEqual({ clientId: 'id', clientSecret: 'secret' });
    expect(await secrets.mapApi()).toEqual({ username: 'u', password: 'p' });
    const ring = await secrets.keyRing.load();
    expect(ring.currentKeyId).toBe('k1');
    const cipher = createTokenCipher(ring);
    const sealed = cipher.encryptTokens(
      createTokenSet({ accessToken: 'a', expiresAt: '2030-01-01T00:00:00.000Z' }),
      'enr_1',
    );
    expect(cipher.decryptTokens(sealed, 'enr_1').accessToken).toBe('a');
  });

  it('reads a rotated key ring past its cache when asked for it fresh, and keeps the cache otherwise', async () => {
    const sm = stubbedSecretsManager({ [API_ARN]: blankCredentials, [RING_ARN]: generatedRing() });
    const secrets = createSecretsManagerSecrets({
      client: sm.client,
      apiClientSecretArn: API_ARN,
      tokenKeyRingSecretArn: RING_ARN,
    });
    expect((await secrets.keyRing.load()).currentKeyId).toBe('k1');
    sm.values[RING_ARN] = JSON.stringify({ current: 'k2', k1: generateKey(), k2: generateKey() });
    // Within the cache's five minutes: the ring read first.
    expect((await secrets.keyRing.load()).currentKeyId).toBe('k1');
    expect(sm.calls.filter((c) => c === RING_ARN)).toHaveLength(1);
    const fresh = await secrets.keyRing.load({ fresh: true });
    expect(fresh.currentKeyId).toBe('k2');
    expect(sm.calls.filter((c) => c === RING_ARN)).toHaveLength(2);
    // The fresh read is the cached one from then on.
    expect(await secrets.keyRing.load()).toEqual(fresh);
    expect(sm.calls.filter((c) => c === RING_ARN)).toHaveLength(2);
  });

  it('refuses blank client credentials naming the secret and how to set it', async () => {
    const sm = stubbedSecretsManager({ [API_ARN]: blankCredentials, [RING_ARN]: generatedRing() });
    const secrets = createSecretsManagerSecrets({
      client: sm.client,
      apiClientSecretArn: API_ARN,
      tokenKeyRingSecretArn: RING_ARN,
    });
    const error = await secrets.apiClient().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SecretError);
    expect(error).toMatchObject({ kind: 'SecretBlank', secret: API_ARN });
    expect((error as Error).message).toContain(API_ARN);
    expect((error as Error).message).toContain('put-secret-value');
  });

  it('skips map polling when the map secret is blank or not bound', async () => {
    const sm = stubbedSecretsManager({ [MAP_ARN]: JSON.stringify({ username: '', password: '' }) });
    const bound = createSecretsManagerSecrets({
      client: sm.client,
      apiClientSecretArn: API_ARN,
      tokenKeyRingSecretArn: RING_ARN,
      mapApiSecretArn: MAP_ARN,
    });
    expect(await bound.mapApi()).toBeUndefined();
    const unbound = createSecretsManagerSecrets({
      client: sm.client,
      apiClientSecretArn: API_ARN,
      tokenKeyRingSecretArn: RING_ARN,
    });
    expect(await unbound.mapApi()).toBeUndefined();
  });

  it('caches each secret for its maxAge (Powertools Parameters), then reads it again', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 0 });
    const sm = stubbedSecretsManager({ [API_ARN]: JSON.stringify({ clientId: 'id', clientSecret: 's' }) });
    const secrets = createSecretsManagerSecrets({
      client: sm.client,
      apiClientSecretArn: API_ARN,
      tokenKeyRingSecretArn: RING_ARN,
      maxAgeSeconds: 1,
    });
    await secrets.apiClient();
    vi.setSystemTime(1000);
    await secrets.apiClient();
    expect(sm.calls).toEqual([API_ARN]);
    sm.values[API_ARN] = JSON.stringify({ clientId: 'id2', clientSecret: 's2' });
    vi.setSystemTime(1001);
    expect((await secrets.apiClient()).clientId).toBe('id2');
    expect(sm.calls).toEqual([API_ARN, API_ARN]);
  });

  it('keeps the last good value when a refresh fails, and names the secret when there is none', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 0 });
    const sm = stubbedSecretsManager({ [API_ARN]: JSON.stringify({ clientId: 'id', clientSecret: 's' }) });
    const secrets = createSecretsManagerSecrets({
      client: () => sm.client,
      apiClientSecretArn: API_ARN,
      tokenKeyRingSecretArn: RING_ARN,
      maxAgeSeconds: 1,
    });
    await secrets.apiClient();
    sm.values[API_ARN] = new InternalServiceError({ message: 'unavailable', $metadata: {} });
    vi.setSystemTime(5000);
    expect((await secrets.apiClient()).clientId).toBe('id');
    expect(sm.calls).toEqual([API_ARN, API_ARN]);
    const ring = await secrets.keyRing.load().catch((e: unknown) => e);
    expect(ring).toMatchObject({ kind: 'SecretUnavailable', secret: RING_ARN });
    expect((ring as Error).message).toMatch(/ResourceNotFoundException.*GetSecretValue grant/);
  });

  it.each([
    ['not json', /not valid JSON/],
    ['[1]', /must be a JSON object/],
    [JSON.stringify({ clientId: 3, clientSecret: 's' }), /clientId must be a string/],
  ])('reports a malformed client secret %s without its value', async (value, message) => {
    const sm = stubbedSecretsManager({ [API_ARN]: value });
    const secrets = createSecretsManagerSecrets({
      client: sm.client,
      apiClientSecretArn: API_ARN,
      tokenKeyRingSecretArn: RING_ARN,
    });
    const error = await secrets.apiClient().catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'SecretMalformed', secret: API_ARN });
    expect((error as Error).message).toMatch(message);
  });

  it('reports a key ring with a wrong key length, naming the secret and the key id', async () => {
    const sm = stubbedSecretsManager({
      [RING_ARN]: JSON.stringify({ current: 'k1', k1: Buffer.alloc(16).toString('base64') }),
    });
    const secrets = createSecretsManagerSecrets({
      client: sm.client,
      apiClientSecretArn: API_ARN,
      tokenKeyRingSecretArn: RING_ARN,
    });
    const error = await secrets.keyRing.load().catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'SecretMalformed', secret: RING_ARN });
    expect((error as Error).message).toMatch(/k1: must be 32 bytes/);
  });
});

describe('local secrets (environment and files)', () => {
  it('reads the same JSON shapes from environment variables', async () => {
    const secrets = localSecretsFromEnv({
      CARHOOK_API_CLIENT: JSON.stringify({ clientId: 'carhook-sim', clientSecret: 'carhook-sim-secret' }),
      CARHOOK_TOKEN_KEYS: generatedRing(),
    });
    expect((await secrets.apiClient()).clientId).toBe('carhook-sim');
    expect((await secrets.keyRing.load()).currentKeyId).toBe('k1');
    expect(await secrets.mapApi()).toBeUndefined();
  });

  it('names the variable when the client credentials are missing', async () => {
    const error = await localSecretsFromEnv({})
      .apiClient()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'SecretBlank', secret: 'CARHOOK_API_CLIENT' });
  });

  it('reads files, and treats a missing map file as "map polling off"', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'carhook-secrets-'));
    await writeFile(join(dir, 'api.json'), JSON.stringify({ clientId: 'a', clientSecret: 'b' }));
    await writeFile(join(dir, 'keys.json'), JSON.stringify({ current: 'k2', keys: { k2: generateKey() } }));
    const secrets = createLocalSecrets({
      apiClient: { kind: 'file', path: join(dir, 'api.json') },
      keyRing: { kind: 'file', path: join(dir, 'keys.json') },
      mapApi: { kind: 'file', path: join(dir, 'absent.json') },
    });
    expect(await secrets.apiClient()).toEqual({ clientId: 'a', clientSecret: 'b' });
    expect((await secrets.keyRing.load()).currentKeyId).toBe('k2');
    expect(await secrets.mapApi()).toBeUndefined();
    const missingRing = createLocalSecrets({
      apiClient: { kind: 'value', json: blankCredentials },
      keyRing: { kind: 'file', path: join(dir, 'nope.json') },
    });
    await expect(missingRing.keyRing.load()).rejects.toMatchObject({
      kind: 'SecretBlank',
      secret: join(dir, 'nope.json'),
    });
  });
});
