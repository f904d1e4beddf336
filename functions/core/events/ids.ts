import { createHash } from 'node:crypto';

/**
 * Deterministic event id: the same change gives the same id on every retry, every re-poll and in
 * every racing worker. Consumers dedupe on it, and it is
 * the webhook `webhook-id`.
 *
 * `scope` is the vehicle id for vehicle events, the enrollment id for enrollment events, the
 * subscription id for webhook events. `key` identifies the record or occurrence (alert id and
 * occurrence, collision id, maintenance cycle…), `transition` what happened to it.
 * 26 base32 characters = 130 bits of SHA-256: collisions are not a practical concern.
 */
export const eventId = (parts: { scope: string; type: string; key: string; transition: string }): string => {
  // Unit separators keep ('a', 'b|c') and ('a|b', 'c') apart.
  const input = `${parts.scope}\u001f${parts.type}\u001f${parts.key}\u001f${parts.transition}`;
  return `evt_${base32(createHash('sha256').update(input).digest()).slice(0, 26)}`;
};

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

const base32 = (bytes: Uint8Array): string => {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
};
