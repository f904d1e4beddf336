/**
 * Key ring sources of the local runtime and of tools: an environment variable or a JSON file, both
 * holding `{"current": "<id>", "keys": {"<id>": "<base64 32 bytes>"}}` (keyRingFromJson). The
 * cipher itself (functions/core/crypto/token-cipher.ts) reads neither.
 */
import { readFile } from 'node:fs/promises';
import { type KeyRing, keyRingFromJson, TokenCipherError } from '../../core/crypto/token-cipher';

export const DEFAULT_KEY_RING_ENV = 'CARHOOK_TOKEN_KEYS';

/** Reads the key ring JSON from an environment variable (local runtime). */
export function keyRingFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
  variable = DEFAULT_KEY_RING_ENV,
): KeyRing {
  const value = env[variable];
  if (value === undefined || value === '') {
    throw new TokenCipherError('InvalidKeyRing', `${variable}: not set (expected {"current":…,"keys":{…}})`, {
      variable,
    });
  }
  return keyRingFromJson(value);
}

/** Reads the key ring JSON from a file (local runtime, e.g. `.carhook/token-keys.json`). */
export async function keyRingFromFile(path: string): Promise<KeyRing> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new TokenCipherError(
      'InvalidKeyRing',
      `key ring file ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`,
      {
        path,
      },
    );
  }
  return keyRingFromJson(text);
}
