import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Encryption of user token sets at rest: AES-256-GCM, a random
 * 96-bit IV per encryption, the key id stored with the ciphertext so keys can be rotated, and the
 * enrollment id as additional authenticated data so a ciphertext copied onto another enrollment
 * does not decrypt.
 *
 * Format: `v1.<keyId>.<iv>.<tag>.<ciphertext>`, each binary part base64url. It is a single string
 * so it fits one attribute and never needs parsing by the store.
 */

const FORMAT_VERSION = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export type TokenCipherErrorKind = 'InvalidKeyRing' | 'UnknownKey' | 'Malformed' | 'DecryptFailed';

export class TokenCipherError extends Error {
  override readonly name = 'TokenCipherError';
  constructor(
    readonly kind: TokenCipherErrorKind,
    message: string,
    /** Never a key or a token: ids and field names only. */
    readonly context: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

export interface KeyRing {
  /** New ciphertexts use this key. */
  readonly currentKeyId: string;
  /** Every key that may still decrypt something, by id (32 bytes each). */
  readonly keys: ReadonlyMap<string, Uint8Array>;
}

/** Where the key ring comes from: Secrets Manager on AWS, environment or file locally. */
export interface KeyRingProvider {
  /**
   * The ring, from the provider's cache if it keeps one; `fresh` reads the source again (a
   * ciphertext named a key this process has not seen: it was rotated in since the last read).
   */
  load(options?: { readonly fresh?: boolean }): Promise<KeyRing>;
}

export function createKeyRing(currentKeyId: string, keys: ReadonlyMap<string, Uint8Array>): KeyRing {
  for (const [id, key] of keys) {
    if (!KEY_ID_PATTERN.test(id)) {
      throw new TokenCipherError('InvalidKeyRing', `keys.${id}: key ids are 1-64 of A-Z a-z 0-9 _ -`, {
        keyId: id,
      });
    }
    if (key.length !== KEY_BYTES) {
      throw new TokenCipherError(
        'InvalidKeyRing',
        `keys.${id}: must be ${KEY_BYTES} bytes, got ${key.length}`,
        {
          keyId: id,
        },
      );
    }
  }
  if (!keys.has(currentKeyId)) {
    throw new TokenCipherError('InvalidKeyRing', `current: key id "${currentKeyId}" is not in keys`, {
      keyId: currentKeyId,
    });
  }
  return { currentKeyId, keys };
}

/**
 * `{"current":"k2","keys":{"k1":"<base64 of 32 bytes>","k2":"…"}}`: the shape of the Secrets
 * Manager secret and of the local env var / file.
 */
export function keyRingFromJson(json: string): KeyRing {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new TokenCipherError('InvalidKeyRing', 'key ring: not valid JSON');
  }
  if (!parsed || typeof parsed !== 'object') {
    throw new TokenCipherError('InvalidKeyRing', 'key ring: must be an object {current, keys}');
  }
  const { current, keys: nested, ...topLevel } = parsed as { current?: unknown; keys?: unknown };
  if (typeof current !== 'string')
    throw new TokenCipherError('InvalidKeyRing', 'current: must be a key id string');
  // Secrets Manager's generateSecretString can only add a top-level field, so the secret the CDK
  // stack creates is {"current":"k1","k1":"<key>"}: key ids next to `current` are accepted too.
  const keys = nested ?? (Object.keys(topLevel).length > 0 ? topLevel : undefined);
  if (!keys || typeof keys !== 'object' || Array.isArray(keys)) {
    throw new TokenCipherError('InvalidKeyRing', 'keys: must be an object of key id → base64 key');
  }
  const map = new Map<string, Uint8Array>();
  for (const [id, value] of Object.entries(keys as Record<string, unknown>)) {
    if (typeof value !== 'string' || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) {
      throw new TokenCipherError('InvalidKeyRing', `keys.${id}: must be a base64 string`, { keyId: id });
    }
    map.set(id, new Uint8Array(Buffer.from(value, 'base64')));
  }
  return createKeyRing(current, map);
}

/** A provider over an already loaded ring (the env/file case); Secrets Manager's caches instead. */
export function staticKeyRingProvider(ring: KeyRing): KeyRingProvider {
  return { load: async () => ring };
}

/** A fresh random 32-byte key, base64: for `carhook` setup and tests. */
export function generateKey(): string {
  return randomBytes(KEY_BYTES).toString('base64');
}

function aad(keyId: string, enrollmentId: string): Buffer {
  return Buffer.from(`carhook/token/${FORMAT_VERSION}/${keyId}/${enrollmentId}`, 'utf8');
}

function b64(data: Uint8Array): string {
  return Buffer.from(data).toString('base64url');
}

function unb64(part: string, field: string): Buffer {
  if (!/^[A-Za-z0-9_-]*$/.test(part)) {
    throw new TokenCipherError('Malformed', `ciphertext: ${field} is not base64url`, { field });
  }
  return Buffer.from(part, 'base64url');
}

interface Parsed {
  readonly keyId: string;
  readonly iv: Buffer;
  readonly tag: Buffer;
  readonly body: Buffer;
}

function parse(ciphertext: string): Parsed {
  const parts = ciphertext.split('.');
  if (parts.length !== 5 || parts[0] !== FORMAT_VERSION) {
    throw new TokenCipherError('Malformed', 'ciphertext: expected v1.<keyId>.<iv>.<tag>.<ciphertext>');
  }
  const [, keyId = '', ivPart = '', tagPart = '', bodyPart = ''] = parts;
  if (!KEY_ID_PATTERN.test(keyId)) throw new TokenCipherError('Malformed', 'ciphertext: invalid key id');
  const iv = unb64(ivPart, 'iv');
  const tag = unb64(tagPart, 'tag');
  if (iv.length !== IV_BYTES)
    throw new TokenCipherError('Malformed', `ciphertext: iv must be ${IV_BYTES} bytes`);
  if (tag.length !== TAG_BYTES)
    throw new TokenCipherError('Malformed', `ciphertext: tag must be ${TAG_BYTES} bytes`);
  return { keyId, iv, tag, body: unb64(bodyPart, 'ciphertext') };
}

export interface TokenCipher {
  /** Encrypts with the current key, bound to `enrollmentId`. */
  encrypt(plaintext: string, enrollmentId: string): string;
  /** Decrypts with whichever known key the ciphertext names; typed error otherwise. */
  decrypt(ciphertext: string, enrollmentId: string): string;
  /** True when the ciphertext is under a key other than the current one (re-encrypt on next write). */
  needsReencrypt(ciphertext: string): boolean;
  /** The same plaintext under the current key (after a rotation); authenticates the old one first. */
  reencrypt(ciphertext: string, enrollmentId: string): string;
  encryptTokens(tokens: TokenSet, enrollmentId: string): string;
  decryptTokens(ciphertext: string, enrollmentId: string): TokenSet;
}

/**
 * `cipher`, telling `notice` whenever a ciphertext names a key its ring lacks (then throwing as
 * before): the key was rotated in after this ring was read, so the next read should skip the cache.
 */
export function noticingUnknownKeys(cipher: TokenCipher, notice: () => void): TokenCipher {
  const watch =
    <A extends unknown[], R>(f: (...args: A) => R) =>
    (...args: A): R => {
      try {
        return f(...args);
      } catch (error) {
        if (error instanceof TokenCipherError && error.kind === 'UnknownKey') notice();
        throw error;
      }
    };
  return {
    ...cipher,
    decrypt: watch(cipher.decrypt),
    reencrypt: watch(cipher.reencrypt),
    decryptTokens: watch(cipher.decryptTokens),
  };
}

export function createTokenCipher(ring: KeyRing): TokenCipher {
  const cipher: TokenCipher = {
    encrypt(plaintext, enrollmentId) {
      const key = ring.keys.get(ring.currentKeyId);
      if (!key) throw new TokenCipherError('UnknownKey', 'current key is missing from the ring');
      const iv = randomBytes(IV_BYTES);
      const gcm = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      gcm.setAAD(aad(ring.currentKeyId, enrollmentId));
      const body = Buffer.concat([gcm.update(plaintext, 'utf8'), gcm.final()]);
      return [FORMAT_VERSION, ring.currentKeyId, b64(iv), b64(gcm.getAuthTag()), b64(body)].join('.');
    },
    decrypt(ciphertext, enrollmentId) {
      const parsed = parse(ciphertext);
      const key = ring.keys.get(parsed.keyId);
      if (!key) {
        throw new TokenCipherError(
          'UnknownKey',
          `ciphertext names key "${parsed.keyId}", which is not in the ring`,
          {
            keyId: parsed.keyId,
            enrollmentId,
          },
        );
      }
      try {
        const gcm = createDecipheriv('aes-256-gcm', key, parsed.iv, { authTagLength: TAG_BYTES });
        gcm.setAAD(aad(parsed.keyId, enrollmentId));
        gcm.setAuthTag(parsed.tag);
        return Buffer.concat([gcm.update(parsed.body), gcm.final()]).toString('utf8');
      } catch {
        throw new TokenCipherError(
          'DecryptFailed',
          'ciphertext does not authenticate: tampered, or it belongs to another enrollment',
          { keyId: parsed.keyId, enrollmentId },
        );
      }
    },
    needsReencrypt(ciphertext) {
      return parse(ciphertext).keyId !== ring.currentKeyId;
    },
    reencrypt(ciphertext, enrollmentId) {
      return cipher.encrypt(cipher.decrypt(ciphertext, enrollmentId), enrollmentId);
    },
    encryptTokens(tokens, enrollmentId) {
      return cipher.encrypt(serializeTokenSet(tokens), enrollmentId);
    },
    decryptTokens(ciphertext, enrollmentId) {
      return parseTokenSet(cipher.decrypt(ciphertext, enrollmentId));
    },
  };
  return cipher;
}

/** What a token set looks like in logs and JSON: never the tokens themselves. */
export interface RedactedTokenSet {
  readonly accessToken: '[redacted]';
  readonly refreshToken?: '[redacted]';
  readonly expiresAt: string;
  readonly scope?: string;
}

export interface TokenFields {
  readonly accessToken: string;
  readonly refreshToken?: string;
  /** ISO 8601 UTC. */
  readonly expiresAt: string;
  readonly scope?: string;
  readonly tokenType?: string;
}

/**
 * A user's tokens in memory. `JSON.stringify` and `util.inspect` (hence console and Powertools
 * logger) see a redacted view; `serializeTokenSet` is the only way to the plain values, used to
 * encrypt.
 */
export interface TokenSet extends TokenFields {
  toJSON(): RedactedTokenSet;
}

const inspectSymbol = Symbol.for('nodejs.util.inspect.custom');

export function createTokenSet(fields: TokenFields): TokenSet {
  if (typeof fields.accessToken !== 'string' || fields.accessToken === '') {
    throw new TokenCipherError('Malformed', 'tokens.accessToken: must be a non-empty string');
  }
  if (typeof fields.expiresAt !== 'string' || Number.isNaN(Date.parse(fields.expiresAt))) {
    throw new TokenCipherError('Malformed', 'tokens.expiresAt: must be an ISO 8601 date');
  }
  if (fields.refreshToken !== undefined && typeof fields.refreshToken !== 'string') {
    throw new TokenCipherError('Malformed', 'tokens.refreshToken: must be a string');
  }
  const redacted = (): RedactedTokenSet => ({
    accessToken: '[redacted]',
    ...(fields.refreshToken !== undefined ? { refreshToken: '[redacted]' as const } : {}),
    expiresAt: fields.expiresAt,
    ...(fields.scope !== undefined ? { scope: fields.scope } : {}),
  });
  const set = {
    accessToken: fields.accessToken,
    ...(fields.refreshToken !== undefined ? { refreshToken: fields.refreshToken } : {}),
    expiresAt: fields.expiresAt,
    ...(fields.scope !== undefined ? { scope: fields.scope } : {}),
    ...(fields.tokenType !== undefined ? { tokenType: fields.tokenType } : {}),
    toJSON: redacted,
    // Enumerable, so a spread copy (`{ ...tokens }`) stays redacted in util.inspect too.
    [inspectSymbol]: redacted,
  };
  return Object.freeze(set);
}

export function serializeTokenSet(tokens: TokenFields): string {
  return JSON.stringify({
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    expiresAt: tokens.expiresAt,
    scope: tokens.scope,
    tokenType: tokens.tokenType,
  });
}

export function parseTokenSet(plaintext: string): TokenSet {
  let parsed: unknown;
  try {
    parsed = JSON.parse(plaintext);
  } catch {
    throw new TokenCipherError('Malformed', 'decrypted token set is not JSON');
  }
  if (!parsed || typeof parsed !== 'object')
    throw new TokenCipherError('Malformed', 'decrypted token set: not an object');
  const { accessToken, refreshToken, expiresAt, scope, tokenType } = parsed as Record<string, unknown>;
  return createTokenSet({
    accessToken: accessToken as string,
    expiresAt: expiresAt as string,
    ...(typeof refreshToken === 'string' ? { refreshToken } : {}),
    ...(typeof scope === 'string' ? { scope } : {}),
    ...(typeof tokenType === 'string' ? { tokenType } : {}),
  });
}
