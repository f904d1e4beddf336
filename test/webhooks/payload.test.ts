import { describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../../functions/core/events/envelope';
import { buildPayload, canonicalJson, serializePayload } from '../../functions/core/webhooks/payload';

const envelope: EventEnvelope = {
  id: 'evt_0001',
  type: 'vehicle.alert.raised',
  schemaVersion: 1,
  occurredAt: '2026-11-22T10:00:00Z',
  detectedAt: '2026-11-22T10:00:05.123Z',
  sequence: 7,
  vehicle: { id: 'veh_1', vin: 'VF1AAAAA555555555' },
  enrollment: { id: 'enr_1', kind: 'oauth-user' },
  source: { api: 'v2', operation: 'getAlerts' },
  data: { alertId: 'a1', severity: 'high', nested: { z: 1, a: [3, 2, 1] } },
};

function reorder<T>(value: T): T {
  if (Array.isArray(value)) return value.map(reorder) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reorder(v)]),
    ) as T;
  }
  return value;
}

describe('webhook payload', () => {
  it('is {type, timestamp, data} with data = the envelope and timestamp = occurredAt in ISO 8601', () => {
    const result = serializePayload(envelope);
    if (!result.ok) throw new Error(result.error.message);
    const parsed = JSON.parse(result.value);
    expect(Object.keys(parsed)).toEqual(['type', 'timestamp', 'data']);
    expect(parsed).toEqual({
      type: 'vehicle.alert.raised',
      timestamp: '2026-11-22T10:00:00.000Z',
      data: envelope,
    });
    expect(buildPayload(envelope).timestamp).toBe('2026-11-22T10:00:00.000Z');
  });

  it('serializes the same event to the same bytes whatever the order its fields were built in', () => {
    const a = serializePayload(envelope);
    const b = serializePayload(reorder(envelope));
    expect(a.ok && b.ok).toBe(true);
    if (a.ok && b.ok) expect(b.value).toBe(a.value);
    expect(serializePayload({ ...envelope, data: { ...envelope.data, gone: undefined } })).toEqual(a);
  });

  it('keeps an unparseable occurredAt as given rather than dropping it', () => {
    expect(buildPayload({ ...envelope, occurredAt: 'sometime' }).timestamp).toBe('sometime');
  });

  it('refuses values JSON cannot carry, naming the path', () => {
    const bad = serializePayload({ ...envelope, data: { reading: { value: 10n } } });
    expect(bad.ok ? '' : bad.error.field).toBe('data.data.reading.value');
    expect(canonicalJson({ x: Number.NaN }).ok).toBe(false);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const c = canonicalJson({ cyclic });
    expect(c.ok ? '' : c.error.message).toBe('$.cyclic.self: circular reference');
  });

  it('matches JSON.stringify for plain values apart from key order', () => {
    const value = { b: [1, 'two', null, true, { d: 1.5, c: -0 }], a: 'é\n"' };
    const r = canonicalJson(value);
    expect(r.ok && JSON.parse(r.value)).toEqual(JSON.parse(JSON.stringify(value)));
    expect(r.ok && r.value).toBe('{"a":"é\\n\\"","b":[1,"two",null,true,{"c":0,"d":1.5}]}');
  });
});
