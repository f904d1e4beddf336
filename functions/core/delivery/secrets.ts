import type { TokenCipher } from '../crypto/token-cipher';
import type { SubscriptionSecrets } from '../webhooks/signing';

/**
 * Subscription secrets at rest: the JSON of `SubscriptionSecrets` (current, and every secret
 * rotated out within the last 24 h with its expiry) encrypted with the token cipher (AES-256-GCM, key ring), bound
 * to the subscription id as AAD so a ciphertext copied onto another subscription does not decrypt.
 */
export interface SecretBox {
  seal(secrets: SubscriptionSecrets, subscriptionId: string): string;
  /** Throws TokenCipherError (tampered, unknown key, another subscription's ciphertext). */
  open(ciphertext: string, subscriptionId: string): SubscriptionSecrets;
}

export function createSecretBox(cipher: Pick<TokenCipher, 'encrypt' | 'decrypt'>): SecretBox {
  return {
    seal: (secrets, subscriptionId) => cipher.encrypt(JSON.stringify(secrets), subscriptionId),
    open: (ciphertext, subscriptionId) => {
      // Parsing boundary: our own JSON, authenticated by GCM just above.
      const parsed = JSON.parse(cipher.decrypt(ciphertext, subscriptionId)) as SubscriptionSecrets;
      return parsed;
    },
  };
}
