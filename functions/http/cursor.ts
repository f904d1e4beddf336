/**
 * Page cursors as the HTTP API hands them out: opaque, authenticated and bounded.
 *
 * A store's cursor (its own encoding of where the next page starts, e.g. DynamoDB's
 * LastEvaluatedKey) never leaves the API as is: it goes out as
 * `base64url(store cursor) "." base64url(HMAC-SHA256(key, list name NUL store cursor))`, so a
 * cursor only comes back to the list that issued it, unchanged. A forged, edited, truncated or
 * oversized cursor is refused here with a 400 naming `cursor`, before the store sees anything (a
 * store handed a key it never issued may fail in ways that look like our fault).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Longest cursor accepted; longer ones are refused before any decoding. */
export const MAX_CURSOR_LENGTH = 2048;
const MAC_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export type CursorCheck =
  | { readonly ok: true; readonly value: string | undefined }
  | { readonly ok: false; readonly field: 'cursor'; readonly message: string };

export interface CursorCodec {
  /** The store's cursor → what the API returns; undefined stays undefined (last page). */
  seal(list: string, storeCursor: string | undefined): string | undefined;
  /** What a client sent → the store's cursor, or why not. An absent cursor is fine (first page). */
  open(list: string, given: string | undefined): CursorCheck;
}

const NOT_OURS = 'cursor: is not a cursor this API returned for this list; start again without it';

export function createCursorCodec(key: Uint8Array): CursorCodec {
  if (key.length < 32) throw new RangeError(`cursor key: at least 32 bytes, got ${key.length}`);
  const mac = (list: string, payload: string) =>
    createHmac('sha256', key).update(list).update('\u0000').update(payload).digest().subarray(0, MAC_BYTES);
  return {
    seal(list, storeCursor) {
      if (storeCursor === undefined) return undefined;
      return `${Buffer.from(storeCursor, 'utf8').toString('base64url')}.${mac(list, storeCursor).toString('base64url')}`;
    },
    open(list, given) {
      if (given === undefined) return { ok: true, value: undefined };
      if (given.length === 0 || given.length > MAX_CURSOR_LENGTH) {
        return {
          ok: false,
          field: 'cursor',
          message:
            given.length === 0
              ? 'cursor: must not be empty; omit it for the first page'
              : `cursor: longer than ${MAX_CURSOR_LENGTH} characters, so not one this API returned`,
        };
      }
      const dot = given.indexOf('.');
      const payloadText = given.slice(0, dot);
      const macText = given.slice(dot + 1);
      if (dot <= 0 || !BASE64URL.test(payloadText) || !BASE64URL.test(macText)) {
        return { ok: false, field: 'cursor', message: NOT_OURS };
      }
      const payloadBytes = Buffer.from(payloadText, 'base64url');
      const presented = Buffer.from(macText, 'base64url');
      // Only the exact text sealed: base64url's unused trailing bits must not give a second
      // spelling of the same cursor.
      if (payloadBytes.toString('base64url') !== payloadText || presented.toString('base64url') !== macText) {
        return { ok: false, field: 'cursor', message: NOT_OURS };
      }
      const payload = payloadBytes.toString('utf8');
      const expected = mac(list, payload);
      if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
        return { ok: false, field: 'cursor', message: NOT_OURS };
      }
      return { ok: true, value: payload };
    },
  };
}

/** The cursor key, derived from the runtime's state-signing key so no further secret is needed. */
export function cursorKeyFrom(stateKey: Uint8Array): Buffer {
  return createHmac('sha256', stateKey).update('carhook http cursor v1').digest();
}
