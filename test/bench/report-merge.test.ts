import { describe, expect, it } from 'vitest';
import { mergeReport, splitSections } from '../../bench/support/report-merge';

const existing = [
  '# Benchmarks',
  '',
  'Intro kept.',
  '',
  '## Summary',
  '',
  '| area | status | wall time |',
  '|---|---|---|',
  '| Simulator | ran | 2 s |',
  '| Freshness at scale | grid | 6 h |',
  '',
  '## Simulator',
  '',
  'old sim figures',
  '',
  '## Freshness at scale: carhook, round-robin, naive',
  '',
  'old freshness grid',
  '',
].join('\n');

const fresh = (areas: [title: string, body: string][]) =>
  [
    '# Benchmarks',
    '',
    'Produced by a partial run.',
    '',
    '## Summary',
    '',
    '| area | status | wall time |',
    '|---|---|---|',
    ...areas.map(([t]) => `| ${t} | ran | 9 s |`),
    '',
    ...areas.flatMap(([t, b]) => [`## ${t}`, '', b, '']),
  ].join('\n');

describe('a partial bench run merged into BENCHMARKS.md', () => {
  it('replaces the section and Summary row of the area run, keeps every other line as it was', () => {
    const out = mergeReport(existing, fresh([['Simulator', 'new sim figures']]), ['Simulator']);
    expect(out).toBe(
      existing
        .replace('old sim figures', 'new sim figures')
        .replace('| Simulator | ran | 2 s |', '| Simulator | ran | 9 s |'),
    );
  });

  it('matches a Summary row named by the start of the title, and keeps the freshness grid when only the simulator ran', () => {
    const title = 'Freshness at scale: carhook, round-robin, naive';
    const out = mergeReport(existing, fresh([[title, 'new grid']]), [title]);
    expect(out).toContain('new grid');
    expect(out).not.toContain('old freshness grid');
    expect(out).toContain('| Freshness at scale: carhook, round-robin, naive | ran | 9 s |');
    expect(out).toContain('old sim figures');
    expect(out).toContain('Intro kept.');
  });

  it('adds a section (and its row) the document did not have, at the end', () => {
    const out = mergeReport(existing, fresh([['Lambda bundles', 'sizes']]), ['Lambda bundles']);
    expect(splitSections(out).sections.map((s) => s.title)).toEqual([
      'Summary',
      'Simulator',
      'Freshness at scale: carhook, round-robin, naive',
      'Lambda bundles',
    ]);
    expect(out).toContain('| Freshness at scale | grid | 6 h |\n| Lambda bundles | ran | 9 s |');
    expect(out.endsWith('## Lambda bundles\n\nsizes\n')).toBe(true);
  });

  it('writes the fresh report whole into an empty or missing file', () => {
    const report = fresh([['Simulator', 'x']]);
    expect(mergeReport('', report, ['Simulator'])).toBe(report);
  });

  it('leaves the document unchanged for a title the fresh report does not hold', () => {
    expect(mergeReport(existing, fresh([]), ['Simulator'])).toBe(existing);
  });
});
