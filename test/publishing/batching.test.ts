import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planBatches } from '../../functions/core/publishing/limits';

describe('planBatches', () => {
  it('keeps order, respects the entry count and byte limits, and sets aside only oversized items', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 400 }), { maxLength: 80 }),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 300 }),
        (sizes, maxEntries, maxItemBytes) => {
          const maxBatchBytes = maxItemBytes + 50;
          const items = sizes.map((size, index) => ({ index, size }));
          const plan = planBatches(items, { maxEntries, maxItemBytes, maxBatchBytes, sizeOf: (i) => i.size });
          for (const batch of plan.batches) {
            expect(batch.length).toBeGreaterThan(0);
            expect(batch.length).toBeLessThanOrEqual(maxEntries);
            expect(batch.reduce((sum, i) => sum + i.size, 0)).toBeLessThanOrEqual(maxBatchBytes);
          }
          expect(plan.oversized.map((o) => o.item.index)).toEqual(
            items.filter((i) => i.size > maxItemBytes).map((i) => i.index),
          );
          expect(plan.batches.flat().map((i) => i.index)).toEqual(
            items.filter((i) => i.size <= maxItemBytes).map((i) => i.index),
          );
        },
      ),
    );
  });

  it('closes a batch only when the next item would not fit', () => {
    const plan = planBatches([5, 5, 5, 1], {
      maxEntries: 10,
      maxItemBytes: 10,
      maxBatchBytes: 11,
      sizeOf: (n) => n,
    });
    expect(plan.batches).toEqual([
      [5, 5],
      [5, 1],
    ]);
  });
});
