import { type TokenCipher, TokenCipherError } from '../crypto/token-cipher';
import type { SubscriptionSecrets } from '../webhooks/signing';

/**
 * Subscription secrets at rest: the JSON of `SubscriptionSecrets` (current, and every secret
 * rotated out within the last 24 h with its expiry) encrypted with the token cipher (AES-256-GCM, key ring), bound
 * to the subscription id as AAD so a ciphertext copied onto another subscription does not decrypt.
 */
export interface SecretBox {
  seal(secrets: SubscriptionSecrets, subscriptionId: string): Promise<string>;
  /** Rejects with TokenCipherError (tampered, unknown key, another subscription's ciphertext). */
  open(ciphertext: string, subscriptionId: string): Promise<SubscriptionSecrets>;
}

type Cipher = Pick<TokenCipher, 'encrypt' | 'decrypt'>;

/** Where the box gets its cipher: the key ring as cached, and read again past the cache. */
export interface CipherSource {
  current(): Promise<Cipher>;
  fresh(): Promise<Cipher>;
}

/** A source that never changes (tests, and a ring loaded once). */
export function fixedCipher(cipher: Cipher): CipherSource {
  return { current: async () => cipher, fresh: async () => cipher };
}

export function createSecretBox(source: CipherSource): SecretBox {
  return {
    seal: async (secrets, subscriptionId) =>
      (await source.current()).encrypt(JSON.stringify(secrets), subscriptionId),
    open: async (ciphertext, subscriptionId) => {
      let text: string;
      try {
        text = (await source.current()).decrypt(ciphertext, subscriptionId);
      } catch (error) {
        // Sealed under a key rotated in after this process last read the ring (another container
        // read it later): read the ring again, once, rather than refuse the delivery.
        if (!(error instanceof TokenCipherError && error.kind === 'UnknownKey')) throw error;
        text = (await source.fresh()).decrypt(ciphertext, subscriptionId);
      }
      // Parsing boundary: our own JSON, authenticated by GCM just above.
      return JSON.parse(text) as SubscriptionSecrets;
    },
  };
}
