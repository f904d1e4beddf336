import { describe, expect, it } from 'vitest';
import { parseContractsCsv, progressBar } from '../../bin/cli/progress';

describe('bulk enrollment input', () => {
  it('reads vin,contract,brand lines, skipping a header and blank lines', () => {
    expect(
      parseContractsCsv('vin,contract,brand\nWVWZZZ1JZXW000001, C-1 ,C\n\nWVWZZZ1JZXW000002,C-2,P\n'),
    ).toEqual({
      ok: true,
      rows: [
        { vin: 'WVWZZZ1JZXW000001', contract: 'C-1', brand: 'C' },
        { vin: 'WVWZZZ1JZXW000002', contract: 'C-2', brand: 'P' },
      ],
    });
  });

  it('names the line that is not vin,contract,brand', () => {
    expect(parseContractsCsv('WVWZZZ1JZXW000001,C-1,C\nWVWZZZ1JZXW000002,C-2')).toEqual({
      ok: false,
      message: 'line 2: expected "vin,contract,brand", got "WVWZZZ1JZXW000002,C-2"',
    });
    expect(parseContractsCsv('vin,contract,brand\n')).toEqual({
      ok: false,
      message: 'no vin,contract,brand lines',
    });
  });
});

describe('the progress bar', () => {
  it('redraws in place on a terminal and ends the line', () => {
    const chunks: string[] = [];
    const bar = progressBar(4, 'enrolling', { isTTY: true, write: (c: string) => chunks.push(c) });
    bar.tick();
    bar.tick(3);
    bar.tick(); // never past the total
    bar.done();
    expect(chunks[0]).toBe(`\renrolling [${'.'.repeat(30)}] 0/4`);
    expect(chunks[1]).toMatch(/^\renrolling \[#{8}\.{22}\] 1\/4$/);
    expect(chunks.at(-2)).toBe(`\renrolling [${'#'.repeat(30)}] 4/4`);
    expect(chunks.at(-1)).toBe('\n');
  });

  it('is silent when the output is not a terminal (pipes, --json)', () => {
    const chunks: string[] = [];
    const bar = progressBar(2, 'x', { isTTY: false, write: (c: string) => chunks.push(c) });
    bar.tick();
    bar.done();
    expect(chunks).toEqual([]);
  });
});
