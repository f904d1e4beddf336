'use strict';
/**
 * Bundled in place of the `semver` package (esbuild alias, lib/constructs/carhook-function.ts).
 *
 * Powertools Tracer loads aws-xray-sdk-core, whose AWS SDK v2 patcher requires all of `semver`
 * (about 29 KB minified, in every Carhook bundle) for one call: `semver.gte(AWS.VERSION, '2.7.15')`
 * in `captureAWS`. Carhook uses the AWS SDK v3 only, so that call never runs; this file still
 * answers it correctly for release versions (`major.minor.patch`, an optional leading `v`;
 * pre-release and build suffixes are ignored) and refuses anything else as semver does.
 * test/infra/semver-gte.test.ts checks it against semver itself.
 */
function parts(version) {
  const match = /^\s*v?(\d+)\.(\d+)\.(\d+)(?:[-+][0-9A-Za-z.+-]*)?\s*$/.exec(String(version));
  if (!match) throw new TypeError(`Invalid Version: ${String(version)}`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

function gte(a, b) {
  const x = parts(a);
  const y = parts(b);
  for (let i = 0; i < 3; i += 1) if (x[i] !== y[i]) return x[i] > y[i];
  return true;
}

module.exports = { gte };
