import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { wHalList } from '../../functions/core/api/wire/common';

describe('HAL list schema', () => {
  const item = z.object({ id: z.string() });

  it('is built once per item schema and embedded names, and shared by every client', () => {
    expect(wHalList('things', item)).toBe(wHalList('things', item));
    expect(wHalList(['a', 'b'], item)).toBe(wHalList(['a', 'b'], item));
    expect(wHalList('other', item)).not.toBe(wHalList('things', item));
    expect(wHalList('things', z.object({ id: z.string() }))).not.toBe(wHalList('things', item));
  });

  it('a shared schema still reads the items under its own names', () => {
    const things = wHalList('things', item);
    const either = wHalList(['a', 'b'], item);
    expect(things.parse({ total: 1, _embedded: { things: [{ id: 'x' }] } })).toEqual({
      items: [{ id: 'x' }],
      total: 1,
    });
    expect(either.parse({ _embedded: { b: [{ id: 'y' }] } })).toEqual({
      items: [{ id: 'y' }],
      total: undefined,
    });
    expect(things.safeParse({ total: 2, _embedded: { b: [{ id: 'y' }] } }).success).toBe(false);
  });

  it('names the item that fails, path under _embedded', () => {
    const r = wHalList('things', item).safeParse({ total: 1, _embedded: { things: [{ id: 3 }] } });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(['_embedded', 'things', 0, 'id']);
  });
});
