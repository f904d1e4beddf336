import { createRequire } from 'node:module';
import fc from 'fast-check';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

// The stand-in bundled in place of `semver` (lib/constructs/carhook-function.ts).
const standIn = createRequire(import.meta.url)('../../lib/bundling/semver-gte.cjs') as {
  gte(a: string, b: string): boolean;
};

const release = fc
  .tuple(fc.nat(30), fc.nat(30), fc.nat(30))
  .map(([major, minor, patch]) => `${major}.${minor}.${patch}`);

describe('the semver stand-in of the Lambda bundles', () => {
  it('answers gte as semver does for release versions', () => {
    fc.assert(
      fc.property(release, release, (a, b) => {
        expect(standIn.gte(a, b)).toBe(semver.gte(a, b));
      }),
      { numRuns: 2_000 },
    );
  });

  it('answers the one call aws-xray-sdk-core makes (AWS SDK v2 version against 2.7.15)', () => {
    for (const version of ['2.7.14', '2.7.15', '2.1692.0', 'v2.10.0']) {
      expect(standIn.gte(version, '2.7.15')).toBe(semver.gte(version, '2.7.15'));
    }
  });

  it('refuses what is not a version, as semver does', () => {
    for (const bad of ['', '2.7', 'latest', '2.x.1']) {
      expect(() => standIn.gte(bad, '2.7.15')).toThrow(TypeError);
      expect(() => semver.gte(bad, '2.7.15')).toThrow(TypeError);
    }
  });
});
