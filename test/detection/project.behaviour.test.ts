import { describe, expect, it } from 'vitest';
import type { EcoScore, Position } from '../../functions/core/api/model';
import { toPosition, toScores } from '../../functions/core/detection/project';

describe('positions copied onto events: only the known fields, only finite numbers', () => {
  it('every known field kept; an unknown field dropped', () => {
    const p = { lon: 2.35, lat: 48.85, alt: 35, heading: 270, collectedAt: '2026-03-01T10:00:00Z', speed: 3 };
    expect(toPosition(p as Position)).toStrictEqual({
      lon: 2.35,
      lat: 48.85,
      alt: 35,
      heading: 270,
      collectedAt: '2026-03-01T10:00:00Z',
    });
  });

  it('zero is a coordinate, an altitude and a heading', () => {
    expect(toPosition({ lon: 0, lat: 0, alt: 0, heading: 0 })).toStrictEqual({
      lon: 0,
      lat: 0,
      alt: 0,
      heading: 0,
    });
  });

  it('no position, or a longitude or latitude that is not a finite number: no position', () => {
    expect(toPosition(undefined)).toBeUndefined();
    expect(toPosition({ lon: Number.NaN, lat: 1 })).toBeUndefined();
    expect(toPosition({ lon: 1, lat: Number.POSITIVE_INFINITY })).toBeUndefined();
    expect(toPosition({ lon: '1', lat: 1 } as unknown as Position)).toBeUndefined();
    expect(toPosition({ lat: 1 } as unknown as Position)).toBeUndefined();
  });

  it('optional fields that are not finite numbers or strings are dropped, the rest kept', () => {
    expect(
      toPosition({ lon: 1, lat: 2, alt: Number.NaN, heading: '90', collectedAt: 5 } as unknown as Position),
    ).toStrictEqual({ lon: 1, lat: 2 });
    expect(toPosition({ lon: 1, lat: 2, heading: 90 })).toStrictEqual({ lon: 1, lat: 2, heading: 90 });
    expect(toPosition({ lon: 1, lat: 2, collectedAt: '' })).toStrictEqual({
      lon: 1,
      lat: 2,
      collectedAt: '',
    });
  });
});

describe('eco-driving scores copied onto events', () => {
  it('each score with its known text fields; unknown fields dropped', () => {
    const scores = {
      global: {
        score: 82,
        evaluation: 'good',
        advice: 'keep going',
        category: 'A',
        label: 'Global',
        extra: 1,
      },
      braking: { score: 0 },
    } as unknown as Record<string, EcoScore>;
    expect(toScores(scores)).toStrictEqual({
      global: { score: 82, evaluation: 'good', advice: 'keep going', category: 'A', label: 'Global' },
      braking: { score: 0 },
    });
  });

  it('an entry that is not an object or has no finite score is left out; a text field that is not a string too', () => {
    const scores = {
      none: null,
      absent: undefined,
      text: 'high',
      nan: { score: Number.NaN },
      missing: { evaluation: 'good' },
      odd: { score: 5, evaluation: 7, advice: null, label: 'L' },
    } as unknown as Record<string, EcoScore>;
    expect(toScores(scores)).toStrictEqual({ odd: { score: 5, label: 'L' } });
  });

  it('no scores: an empty object', () => {
    expect(toScores({})).toStrictEqual({});
  });
});
