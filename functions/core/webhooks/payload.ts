import type { EventEnvelope } from '../events/envelope';
import { err, ok, type Result } from '../result';

/**
 * The Standard Webhooks body: `{type, timestamp, data}` with `data` = the envelope. `timestamp` is when the event occurred (`occurredAt`, as the Standard Webhooks spec
 * defines it), not when it is sent: the body must be byte-identical on every retry and replay, so
 * nothing about the attempt goes in it (the attempt time is in `webhook-timestamp`).
 */
export interface WebhookPayload {
  readonly type: string;
  readonly timestamp: string;
  readonly data: EventEnvelope;
}

export interface PayloadError {
  readonly kind: 'Malformed';
  readonly field: string;
  readonly message: string;
}

/** ISO 8601 UTC with milliseconds when parseable; otherwise the string as given (never dropped). */
function isoTimestamp(value: string): string {
  const t = Date.parse(value);
  return Number.isNaN(t) ? value : new Date(t).toISOString();
}

export function buildPayload(envelope: EventEnvelope): WebhookPayload {
  return { type: envelope.type, timestamp: isoTimestamp(envelope.occurredAt), data: envelope };
}

/**
 * Canonical JSON: object keys sorted at every depth, `undefined` members omitted (as
 * JSON.stringify does), so the same event serializes to the same bytes whatever order its fields
 * were built in. Values JSON cannot carry (bigint, functions, symbols, non-finite numbers, cycles)
 * are an error naming the path, rather than silently becoming `null` or a different body.
 */
export function canonicalJson(value: unknown): Result<string, PayloadError> {
  const seen = new Set<object>();
  const fail = (path: string, why: string) =>
    err({ kind: 'Malformed' as const, field: path, message: `${path}: ${why}` });

  function walk(v: unknown, path: string): Result<string, PayloadError> {
    if (v === null) return ok('null');
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return ok(JSON.stringify(v));
      case 'number':
        return Number.isFinite(v) ? ok(JSON.stringify(v)) : fail(path, `${v} is not representable in JSON`);
      case 'object':
        break;
      default:
        return fail(path, `a ${typeof v} is not representable in JSON`);
    }
    const obj = v as object;
    if (typeof (obj as { toJSON?: unknown }).toJSON === 'function') {
      return walk((obj as { toJSON: () => unknown }).toJSON(), path);
    }
    if (seen.has(obj)) return fail(path, 'circular reference');
    seen.add(obj);
    const parts: string[] = [];
    if (Array.isArray(obj)) {
      for (const [i, item] of obj.entries()) {
        // JSON.stringify turns holes and undefined in arrays into null; keep that, it is deterministic.
        const r = item === undefined ? ok('null') : walk(item, `${path}[${i}]`);
        if (!r.ok) return r;
        parts.push(r.value);
      }
      seen.delete(obj);
      return ok(`[${parts.join(',')}]`);
    }
    const record = obj as Record<string, unknown>;
    for (const key of Object.keys(record).sort()) {
      const member = record[key];
      if (member === undefined) continue;
      const r = walk(member, `${path}.${key}`);
      if (!r.ok) return r;
      parts.push(`${JSON.stringify(key)}:${r.value}`);
    }
    seen.delete(obj);
    return ok(`{${parts.join(',')}}`);
  }
  return walk(value, '$');
}

/**
 * The exact body bytes of an event's webhook: `{"type":…,"timestamp":…,"data":{…}}` with the
 * top-level members in the Standard Webhooks order and the envelope in canonical JSON.
 */
export function serializePayload(envelope: EventEnvelope): Result<string, PayloadError> {
  const payload = buildPayload(envelope);
  const data = canonicalJson(payload.data);
  if (!data.ok) {
    return err({
      ...data.error,
      field: data.error.field.replace(/^\$/, 'data'),
      message: data.error.message.replace(/^\$/, 'data'),
    });
  }
  return ok(
    `{"type":${JSON.stringify(payload.type)},"timestamp":${JSON.stringify(payload.timestamp)},"data":${data.value}}`,
  );
}
