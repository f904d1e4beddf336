/**
 * README.md is for a newcomer: short, its tables readable, its generated tables current, and every
 * link it gives leads to a file of the repository.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { README_PATH, renderReadme } from '../../bin/readme-tables';

const ROOT = dirname(README_PATH);
const readme = readFileSync(README_PATH, 'utf8');

/** Every relative link target of a Markdown text, anchors cut off. */
const relativeLinks = (text: string): string[] =>
  [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1] ?? '')
    .filter((l) => !/^(https?:|mailto:|#)/.test(l))
    .map((l) => l.split('#')[0] ?? '');

describe('README.md', () => {
  it('has its generated tables up to date (npm run docs:readme)', () => {
    expect(readme === renderReadme(readme), 'README.md is stale: run npm run docs:readme').toBe(true);
  });

  it('is under 200 lines, and no table cell is over 200 characters', () => {
    expect(readme.split('\n').length).toBeLessThan(200);
    const long = readme
      .split('\n')
      .filter((l) => l.startsWith('|'))
      .flatMap((l) => l.split(/(?<!\\)\|/).map((c) => c.trim()))
      .filter((c) => c.length > 200);
    expect(long).toEqual([]);
  });

  it('links only to files of the repository, and each exists', () => {
    const docs = [
      'README.md',
      'docs/running-locally.md',
      'docs/http-api.md',
      'docs/aws-runtime.md',
      'docs/api-client.md',
      'docs/receiving-events.md',
      'docs/guarantees.md',
      'TESTING.md',
    ];
    const broken: string[] = [];
    for (const doc of docs) {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      for (const link of relativeLinks(text)) {
        const target = resolve(ROOT, dirname(doc), link);
        if (!target.startsWith(ROOT) || !existsSync(target)) broken.push(`${doc}: ${link}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('names a missing marker instead of writing around it', () => {
    expect(() => renderReadme('# no markers')).toThrow(/marker .* is missing/);
  });
});
