import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { keyRingFromEnv, keyRingFromFile } from '../../../functions/adapters/secrets/key-ring-sources';
import {
  createKeyRing,
  createTokenCipher,
  createTokenSet,
  generateKey,
  keyRingFromJson,
  TokenCipherError,
} from '../../../functions/core/crypto/token-cipher';

const k1 = generateKey();
const k2 = generateKey();
const ringV1 = keyRingFromJson(JSON.stringify({ current: 'k1', keys: { k1 } }));
const ringV2 = keyRingFromJson(JSON.stringify({ current: 'k2', keys: { k1, k2 } }));
const tokens = createTokenSet({
  accessToken: 'access-secret-123',
  refreshToken: 'refresh-secret-456',
  expiresAt: '2026-11-22T11:00:00.000Z',
  scope: 'data:telemetry',
});

function cipherError(fn: () => unknown): TokenCipherError {
  try {
    fn();
  } catch (error) {
    if (error instanceof TokenCipherError) return error;
    throw error;
  }
  throw new Error('expected a TokenCipherError');
}

describe('token cipher (AES-256-GCM, key id with the ciphertext, bound to the enrollment)', () => {
  it('round-trips a token set and uses a fresh IV every time', () => {
    const cipher = createTokenCipher(ringV1);
    const a = cipher.encryptTokens(tokens, 'enr-1');
    const b = cipher.encryptTokens(tokens, 'enr-1');
    expect(a).not.toBe(b);
    expect(a.startsWith('v1.k1.')).toBe(true);
    expect(a).not.toContain('secret');
    const back = cipher.decryptTokens(a, 'enr-1');
    expect(back.accessToken).toBe('access-secret-123');
    expect(back.refreshToken).toBe('refresh-secret-456');
    expect(back.expiresAt).toBe('2026-11-22T11:00:00.000Z');
  });

  it('refuses a ciphertext copied onto another enrollment', () => {
    const cipher = createTokenCipher(ringV1);
    const sealed = cipher.encrypt('secret', 'enr-1');
    expect(cipherError(() => cipher.decrypt(sealed, 'enr-2')).kind).toBe('DecryptFailed');
  });

  it('detects tampering with the body, the tag, the IV or the key id', () => {
    const cipher = createTokenCipher(ringV2);
    const sealed = cipher.encrypt('secret-value', 'enr-1');
    const [v, keyId, iv, tag, body] = sealed.split('.') as [string, string, string, string, string];
    const flip = (part: string) => {
      const bytes = Buffer.from(part, 'base64url');
      bytes[0] = (bytes[0] ?? 0) ^ 1;
      return bytes.toString('base64url');
    };
    for (const forged of [
      [v, keyId, iv, tag, flip(body)],
      [v, keyId, iv, flip(tag), body],
      [v, keyId, flip(iv), tag, body],
      [v, 'k1', iv, tag, body],
    ]) {
      expect(cipherError(() => cipher.decrypt(forged.join('.'), 'enr-1')).kind).toBe('DecryptFailed');
    }
    expect(cipherError(() => cipher.decrypt('v1.k1.short', 'enr-1')).kind).toBe('Malformed');
    expect(cipherError(() => cipher.decrypt(`v2.${keyId}.${iv}.${tag}.${body}`, 'enr-1')).kind).toBe(
      'Malformed',
    );
  });

  it('rotates: encrypts with the current key, still decrypts the old one, and says what needs re-encrypting', () => {
    const old = createTokenCipher(ringV1).encrypt('secret', 'enr-1');
    const rotated = createTokenCipher(ringV2);
    expect(rotated.decrypt(old, 'enr-1')).toBe('secret');
    expect(rotated.needsReencrypt(old)).toBe(true);
    const fresh = rotated.encrypt('secret', 'enr-1');
    expect(fresh.startsWith('v1.k2.')).toBe(true);
    expect(rotated.needsReencrypt(fresh)).toBe(false);
    const moved = rotated.reencrypt(old, 'enr-1');
    expect(moved.startsWith('v1.k2.')).toBe(true);
    expect(rotated.decrypt(moved, 'enr-1')).toBe('secret');
    expect(() => rotated.reencrypt(old, 'enr-2')).toThrow(TokenCipherError);
  });

  it('fails with UnknownKey when the ciphertext names a key the ring no longer has', () => {
    const sealed = createTokenCipher(ringV2).encrypt('secret', 'enr-1');
    const error = cipherError(() => createTokenCipher(ringV1).decrypt(sealed, 'enr-1'));
    expect(error.kind).toBe('UnknownKey');
    expect(error.context.keyId).toBe('k2');
  });

  it('never shows the tokens in JSON or util.inspect', () => {
    const logged = [
      JSON.stringify({ tokens }),
      inspect(tokens),
      JSON.stringify({ ...tokens }),
      inspect({ ...tokens }),
    ].join(' ');
    expect(logged).not.toContain('access-secret-123');
    expect(logged).not.toContain('refresh-secret-456');
    expect(logged).toContain('[redacted]');
  });

  it('reads the key ring Secrets Manager generates, with key ids next to current', () => {
    // generateSecretString({ secretStringTemplate: '{"current":"k1"}', generateStringKey: 'k1',
    // passwordLength: 43, excludePunctuation: true }): 43 base64 characters = 32 bytes.
    const generated = 'Ab3dEfGh1jKlMn0pQrStUvWxYz0123456789abcdefg';
    const ring = keyRingFromJson(JSON.stringify({ current: 'k1', k1: generated }));
    expect(ring.currentKeyId).toBe('k1');
    const cipher = createTokenCipher(ring);
    expect(cipher.decrypt(cipher.encrypt('secret', 'enr-1'), 'enr-1')).toBe('secret');
  });

  it('validates the key ring and names the faulty field', () => {
    expect(cipherError(() => keyRingFromJson('{')).message).toContain('JSON');
    expect(
      cipherError(() => keyRingFromJson(JSON.stringify({ current: 'k9', keys: { k1 } }))).message,
    ).toContain('current');
    const short = Buffer.alloc(16).toString('base64');
    expect(
      cipherError(() => keyRingFromJson(JSON.stringify({ current: 'k1', keys: { k1: short } }))).message,
    ).toContain('keys.k1');
    expect(cipherError(() => createKeyRing('a.b', new Map([['a.b', new Uint8Array(32)]]))).kind).toBe(
      'InvalidKeyRing',
    );
    expect(cipherError(() => keyRingFromEnv({})).message).toContain('CARHOOK_TOKEN_KEYS');
    expect(
      keyRingFromEnv({ CARHOOK_TOKEN_KEYS: JSON.stringify({ current: 'k1', keys: { k1 } }) }).currentKeyId,
    ).toBe('k1');
  });

  it('reads the key ring from a file and reports a missing one', async () => {
    const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = await mkdtemp(join(tmpdir(), 'carhook-keys-'));
    try {
      const path = join(dir, 'keys.json');
      await writeFile(path, JSON.stringify({ current: 'k2', keys: { k1, k2 } }));
      expect((await keyRingFromFile(path)).keys.size).toBe(2);
      await expect(keyRingFromFile(join(dir, 'missing.json'))).rejects.toMatchObject({
        kind: 'InvalidKeyRing',
      });
    } finally {
      await rm(dir, { recursive: true });
    }
  });
});
