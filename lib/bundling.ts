/**
 * How every Carhook Lambda is bundled, stated once: CarhookFunction passes these to NodejsFunction
 * (which runs esbuild), and the bundle test and benchmark build with the same esbuild options
 * (`esbuildOptions`), so what they measure is what is deployed.
 */

/**
 * ESM bundles lose `require`; some dependencies (the X-Ray SDK under Powertools Tracer) still call
 * it for Node built-ins, so the bundle recreates it (the banner Powertools documents for ESM).
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as topLevelCreateRequire } from 'node:module';const require = topLevelCreateRequire(import.meta.url);";

export const CARHOOK_BUNDLING = {
  minify: true,
  sourceMap: true,
  // The .map file stays small without the sources; stack traces still point at the TS lines.
  sourcesContent: false,
  target: 'node22',
  // Prefer ESM entry points so esbuild can tree-shake dependencies.
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  // Nothing external: the AWS SDK v3 is bundled (the version package-lock.json pins and the tests
  // ran), not taken from the Lambda runtime, and only the parts a handler imports.
  externalModules: [] as string[],
} as const;

/**
 * What the bundle's code knows at build time: whether the function traces (functions/runtime/tracing.ts
 * leaves the Tracer and the X-Ray SDK out of a bundle built with `false`).
 */
export function bundleDefines(options: { readonly tracing: boolean }): Record<string, string> {
  return { CARHOOK_TRACING: options.tracing ? 'true' : 'false' };
}

/** The esbuild options NodejsFunction derives from CARHOOK_BUNDLING (ESM output, Node platform). */
export function esbuildOptions(options: { readonly tracing: boolean } = { tracing: true }) {
  return {
    bundle: true,
    platform: 'node' as const,
    format: 'esm' as const,
    target: CARHOOK_BUNDLING.target,
    minify: CARHOOK_BUNDLING.minify,
    sourcemap: CARHOOK_BUNDLING.sourceMap,
    sourcesContent: CARHOOK_BUNDLING.sourcesContent,
    mainFields: [...CARHOOK_BUNDLING.mainFields],
    banner: { js: CARHOOK_BUNDLING.banner },
    external: [...CARHOOK_BUNDLING.externalModules],
    define: bundleDefines(options),
  };
}
