import type { EventEnvelope } from '../../functions/core/events/envelope';

export const envelope = (id: string, overrides: Partial<EventEnvelope> = {}): EventEnvelope => ({
  id,
  // A catalogue type whose data has one free-text field: the publisher validates every event.
  type: 'webhook.test',
  schemaVersion: 1,
  occurredAt: '2026-11-22T03:00:00.000Z',
  detectedAt: '2026-11-22T03:00:05.000Z',
  sequence: 1,
  vehicle: { id: 'veh-1', vin: 'VF1AAAAA000000001', brand: 'acme' },
  enrollment: { id: 'enr-1', kind: 'oauth-user' },
  source: { api: 'carhook', operation: 'subscriptions.test', recordId: 'sub-1' },
  data: { subscriptionId: 'sub-1', message: 'hello' },
  ...overrides,
});

/** An envelope whose PutEvents entry (source `carhook`, Time set) is exactly `bytes` bytes. */
export const envelopeOfEntrySize = (id: string, bytes: number): EventEnvelope => {
  const base = envelope(id, { data: { subscriptionId: 'sub-1', message: '' } });
  const fixed = 14 + 'carhook'.length + base.type.length + JSON.stringify(base).length;
  return envelope(id, { data: { subscriptionId: 'sub-1', message: 'x'.repeat(bytes - fixed) } });
};

export const events = (count: number, prefix = 'evt'): EventEnvelope[] =>
  Array.from({ length: count }, (_, i) => envelope(`${prefix}-${i}`, { sequence: i + 1 }));
