import { describe, expect, it } from 'vitest';
import { createMemoryStores } from '../../functions/adapters/memory/stores';
import { createKeyRing, type KeyRing, TokenCipherError } from '../../functions/core/crypto/token-cipher';
import { createMemoryRateBudget } from '../../functions/core/ratelimit/budget';
import { createRuntime } from '../../functions/runtime/runtime';

const key = (n: number) => new Uint8Array(32).fill(n);
const before = createKeyRing('k1', new Map([['k1', key(1)]]));
const after = createKeyRing(
  'k2',
  new Map([
    ['k1', key(1)],
    ['k2', key(2)],
  ]),
);

/** A runtime whose key ring provider answers `cached` until asked fresh, recording each load. */
function runtimeOver(cached: KeyRing, source: KeyRing) {
  const loads: ('cached' | 'fresh')[] = [];
  const runtime = createRuntime(
    {
      api: { baseUrl: 'https://api.example.com', authUrl: 'https://auth.example.com', brands: ['cielo'] },
      quota: { requests: 120, windowSeconds: 60 },
      pollIntervalSeconds: 60,
      version: 'test',
    },
    {
      stores: createMemoryStores(),
      rateBudget: createMemoryRateBudget(),
      bus: { publish: async () => ({ published: [], failed: [] }) },
      secrets: {
        apiClient: async () => ({ clientId: 'c', clientSecret: 's' }),
        mapApi: async () => undefined,
        keyRing: {
          load: async (options) => {
            loads.push(options?.fresh ? 'fresh' : 'cached');
            return options?.fresh ? source : cached;
          },
        },
      },
    },
  );
  return { runtime, loads };
}

describe('the runtime token cipher after a key ring rotation', () => {
  it('reads the ring past the cache at the next call after a ciphertext named a key it lacked', async () => {
    const newer = runtimeOver(after, after);
    const sealed = (await newer.runtime.cipher()).encrypt('token', 'enr_1');

    const warm = runtimeOver(before, after);
    const stale = await warm.runtime.cipher();
    expect(() => stale.decrypt(sealed, 'enr_1')).toThrow(TokenCipherError);
    // The failed decrypt is told: the next call reads the source, and the new key decrypts.
    expect((await warm.runtime.cipher()).decrypt(sealed, 'enr_1')).toBe('token');
    expect(warm.loads).toEqual(['cached', 'fresh']);
    // Once: the calls after it use the cache again.
    await warm.runtime.cipher();
    expect(warm.loads).toEqual(['cached', 'fresh', 'cached']);
  });

  it('reads fresh when asked, and not after a ciphertext that only failed to authenticate', async () => {
    const { runtime, loads } = runtimeOver(before, after);
    const cipher = await runtime.cipher();
    const sealed = cipher.encrypt('token', 'enr_1');
    expect(() => cipher.decrypt(sealed, 'enr_other')).toThrow(TokenCipherError);
    await runtime.cipher();
    expect(loads).toEqual(['cached', 'cached']);
    expect((await runtime.cipher({ fresh: true })).encrypt('x', 'enr_1')).toMatch(/^v1\.k2\./);
    expect(loads).toEqual(['cached', 'cached', 'fresh']);
  });
});
