/**
 * `carhook verify`: checks a saved webhook request against a subscription secret. The request is
 * either JSON `{"headers": {...}, "body": "..."}` or raw HTTP (request line optional, headers, a
 * blank line, the body byte for byte).
 */
import { verify } from '../../functions/core/webhooks/signing';

export interface SavedRequest {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export type VerifyReport = { valid: true; id: string; timestamp: number } | { valid: false; reason: string };

export function parseSavedRequest(
  text: string,
): { ok: true; value: SavedRequest } | { ok: false; message: string } {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return { ok: false, message: 'looks like JSON but does not parse' };
    }
    const o = raw as { headers?: unknown; body?: unknown };
    if (typeof o.headers !== 'object' || o.headers === null)
      return { ok: false, message: 'headers: must be an object' };
    if (typeof o.body !== 'string') return { ok: false, message: 'body: must be the raw body as a string' };
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(o.headers as Record<string, unknown>)) {
      if (typeof v === 'string') headers[k.toLowerCase()] = v;
    }
    return { ok: true, value: { headers, body: o.body } };
  }
  const split = /\r?\n\r?\n/.exec(text);
  if (!split) return { ok: false, message: 'raw HTTP needs headers, a blank line, then the body' };
  const head = text.slice(0, split.index).split(/\r?\n/);
  const body = text.slice(split.index + split[0].length);
  const headers: Record<string, string> = {};
  for (const line of head) {
    const colon = line.indexOf(':');
    if (colon <= 0 || /^[A-Z]+ \S+ HTTP\//.test(line)) continue;
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { ok: true, value: { headers, body } };
}

export function verifySaved(saved: SavedRequest, secret: string, ignoreTimestamp: boolean): VerifyReport {
  // 100 years: "any time", for requests saved long ago.
  const r = verify(
    saved.headers,
    saved.body,
    secret,
    ignoreTimestamp ? { toleranceSeconds: 100 * 365 * 86_400 } : {},
  );
  return r.ok
    ? { valid: true, id: r.value.id, timestamp: r.value.timestamp }
    : { valid: false, reason: r.error.message };
}
