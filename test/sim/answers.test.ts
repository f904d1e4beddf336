import { describe, expect, it } from 'vitest';
import { AnswerHistory, withoutOneItem } from '../../sim/http/answers';

const answer = (at: number, body = `b${at}`) => ({ at, status: 200, contentType: 'application/json', body });

describe('the answers kept for the stale chaos mode', () => {
  it('gives the newest answer at or before a time, per request key', () => {
    const h = new AnswerHistory();
    h.record('k', answer(1_000), 60_000);
    h.record('k', answer(2_000), 60_000);
    h.record('other', answer(1_500), 60_000);
    expect(h.givenBy('k', 999)).toBeUndefined();
    expect(h.givenBy('k', 1_000)?.body).toBe('b1000');
    expect(h.givenBy('k', 1_999)?.body).toBe('b1000');
    expect(h.givenBy('k', 5_000)?.body).toBe('b2000');
    expect(h.givenBy('other', 5_000)?.body).toBe('b1500');
    expect(h.givenBy('none', 5_000)).toBeUndefined();
  });

  it('keeps only what a draw can still serve: every answer younger than the age, and the newest older one', () => {
    const h = new AnswerHistory();
    for (const at of [0, 10_000, 20_000, 30_000]) h.record('k', answer(at), 15_000);
    // At 30 s with an age of 15 s, a draw serves the answer of 10 s or later: 0 s is gone.
    expect(h.givenBy('k', 5_000)).toBeUndefined();
    expect(h.givenBy('k', 15_000)?.body).toBe('b10000');
    h.clear();
    expect(h.givenBy('k', 30_000)).toBeUndefined();
  });
});

describe('one list item dropped (flap)', () => {
  const first = () => 0;
  const last = (n: number) => n - 1;

  it('a plain array, a HAL list (total follows) and a v1 list property', () => {
    expect(withoutOneItem([1, 2, 3], first)).toEqual([2, 3]);
    expect(withoutOneItem([1, 2, 3], last)).toEqual([1, 2]);
    expect(
      withoutOneItem({ total: 3, _links: {}, _embedded: { alerts: ['a', 'b', 'c'] } }, (n) => n - 2),
    ).toEqual({ total: 2, _links: {}, _embedded: { alerts: ['a', 'c'] } });
    expect(withoutOneItem({ vin: 'V', listAlert: [{ idAlert: '1' }, { idAlert: '2' }] }, first)).toEqual({
      vin: 'V',
      listAlert: [{ idAlert: '2' }],
    });
  });

  it('nothing to drop: an empty list, a single record, a HAL record whose _embedded holds no list', () => {
    expect(withoutOneItem([], first)).toBeUndefined();
    expect(withoutOneItem({ total: 0, _embedded: { alerts: [] } }, first)).toBeUndefined();
    expect(withoutOneItem({ days: 3, mileage: 100 }, first)).toBeUndefined();
    expect(withoutOneItem({ id: 'a1', _embedded: { position: { lat: 1 } } }, first)).toBeUndefined();
    expect(withoutOneItem('text', first)).toBeUndefined();
    expect(withoutOneItem(null, first)).toBeUndefined();
  });
});
