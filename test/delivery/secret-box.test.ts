import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createKeyRing,
  createTokenCipher,
  type TokenCipher,
  TokenCipherError,
} from '../../functions/core/crypto/token-cipher';
import { createSecretBox, fixedCipher } from '../../functions/core/delivery/secrets';

const k1 = randomBytes(32);
const k2 = randomBytes(32);
const before = createTokenCipher(createKeyRing('k1', new Map([['k1', k1]])));
const after = createTokenCipher(
  createKeyRing(
    'k2',
    new Map([
      ['k1', k1],
      ['k2', k2],
    ]),
  ),
);

/** A source whose cached ring is `current` until `fresh` is read, counting the fresh reads. */
function source(current: TokenCipher, fresh: TokenCipher) {
  const reads = { fresh: 0 };
  return {
    reads,
    source: {
      current: async () => current,
      fresh: async () => {
        reads.fresh += 1;
        return fresh;
      },
    },
  };
}

describe('subscription secret box', () => {
  it('opens what it sealed, bound to the subscription id', async () => {
    const box = createSecretBox(fixedCipher(before));
    const sealed = await box.seal({ current: 'whsec_a' }, 'sub_1');
    expect(await box.open(sealed, 'sub_1')).toEqual({ current: 'whsec_a' });
    await expect(box.open(sealed, 'sub_2')).rejects.toMatchObject({ kind: 'DecryptFailed' });
  });

  it('reads the key ring again, once, when a secret was sealed under a key rotated in since', async () => {
    // Sealed by a container that read the ring after the rotation (k2 current).
    const sealed = await createSecretBox(fixedCipher(after)).seal({ current: 'whsec_new' }, 'sub_1');
    const warm = source(before, after);
    expect(await createSecretBox(warm.source).open(sealed, 'sub_1')).toEqual({ current: 'whsec_new' });
    expect(warm.reads.fresh).toBe(1);
  });

  it('does not read the ring again for a ciphertext that is tampered, nor loop when the fresh ring lacks the key too', async () => {
    const sealed = await createSecretBox(fixedCipher(after)).seal({ current: 'whsec_new' }, 'sub_1');
    const stale = source(before, before);
    const error = await createSecretBox(stale.source)
      .open(sealed, 'sub_1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenCipherError);
    expect(error).toMatchObject({ kind: 'UnknownKey' });
    expect(stale.reads.fresh).toBe(1);

    const good = await createSecretBox(fixedCipher(before)).seal({ current: 'whsec_a' }, 'sub_1');
    const tampered = `${good.slice(0, -2)}AA`;
    const counted = source(before, after);
    await expect(createSecretBox(counted.source).open(tampered, 'sub_1')).rejects.toMatchObject({
      kind: 'DecryptFailed',
    });
    expect(counted.reads.fresh).toBe(0);
  });
});
