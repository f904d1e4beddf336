/**
 * The catalogue's samples: for each event type, a payload a webhook received in the end-to-end test
 * of the whole catalogue (docs/events.samples.json, test/e2e/catalogue). Bundled into the functions
 * that need them (the HTTP API: the console's catalogue page and "send a sample").
 */

import samples from '../../docs/events.samples.json' with { type: 'json' };
import type { EventEnvelope } from '../core/events/envelope';

const byType = samples as unknown as Readonly<Record<string, EventEnvelope>>;

export const sampleOf = (type: string): EventEnvelope | undefined =>
  Object.hasOwn(byType, type) ? byType[type] : undefined;
