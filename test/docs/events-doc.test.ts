/**
 * docs/events.md cannot drift: it is what `npm run docs:events` writes from the catalogue notes and
 * the samples the end-to-end catalogue test received, and every sample is still an event the
 * published schemas accept.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  EVENTS_DOC_PATH,
  NOTES,
  REGENERATE,
  renderEventsDoc,
  shapeOf,
  span,
  storedSamples,
} from '../../bin/events-doc';
import { EVENT_TYPES } from '../../functions/core/events/catalogue';
import { validateEvent } from '../../functions/core/events/validate';

describe('docs/events.md', () => {
  it('is up to date (regenerate: npm run docs:events)', async () => {
    const current = await readFile(EVENTS_DOC_PATH, 'utf8');
    expect(current === (await renderEventsDoc()), 'docs/events.md is stale: run npm run docs:events').toBe(
      true,
    );
  });

  it('has a note and a received sample for every catalogue type, each accepted by its schema', async () => {
    const samples = await storedSamples();
    expect(Object.keys(NOTES).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      const sample = samples[type] as { type?: string } | undefined;
      expect(sample?.type, `no sample of ${type}: run ${REGENERATE}`).toBe(type);
      expect(validateEvent(sample), `the sample of ${type} no longer validates: run ${REGENERATE}`).toEqual({
        ok: true,
      });
    }
  });

  it('compares payloads by shape: keys and value types, not values', () => {
    expect(shapeOf({ b: 1, a: ['x', 'y'], c: { d: null } })).toEqual({
      a: ['string'],
      b: 'number',
      c: { d: 'null' },
    });
    expect(shapeOf({ a: 1 })).not.toEqual(shapeOf({ a: 1, extra: true }));
  });

  it('writes durations readably', () => {
    expect([
      span(38_000),
      span(120_000),
      span(6 * 3_600_000),
      span(99_305_000),
      span(5 * 86_400_000),
    ]).toEqual(['38 s', '2 min', '6 h', '27.6 h', '5 days']);
  });
});
