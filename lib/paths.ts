import { fileURLToPath } from 'node:url';

/**
 * Paths the CDK app reads at synth time, resolved from this file rather than from the working
 * directory, so `cdk synth` and the tests behave the same wherever they are started.
 */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** One Draft 4 JSON Schema per event type (the public contract), written by `npm run schemas`. */
export const EVENTS_SCHEMAS_DIR = fileURLToPath(new URL('../events-schemas', import.meta.url));

/** The lock file NodejsFunction uses to find the project root and the installed esbuild. */
export const LOCK_FILE = fileURLToPath(new URL('../package-lock.json', import.meta.url));
