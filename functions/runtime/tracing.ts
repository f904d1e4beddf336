/**
 * X-Ray tracing through Powertools Tracer, in the bundles built with it only.
 *
 * `CARHOOK_TRACING` is replaced when a function is bundled (lib/bundling.ts `define`) by whether
 * that function traces (the CDK prop `tracing`, on by default: `TracingConfig` Active). With it
 * `false` esbuild drops the branch below, and with it the Tracer and the X-Ray SDK it imports
 * (about 100 KB with `semver` and `cls-hooked`). Outside a bundle (tests, `carhook dev`) it is not
 * defined: the Tracer loads, and Powertools turns itself off when not on Lambda.
 *
 * The Tracer is loaded at the first invocation, by the middleware below, before the handler runs,
 * so the SDK clients the handler creates are captured (runtime/aws-clients.ts).
 */
import type { Tracer } from '@aws-lambda-powertools/tracer';
import type middy from '@middy/core';

declare const CARHOOK_TRACING: boolean | undefined;

interface Loaded {
  readonly tracer: Tracer;
  readonly middleware: () => middy.MiddlewareObj;
}

let loading: Promise<Loaded | undefined> | undefined;
let loaded: Tracer | undefined;

function load(): Promise<Loaded | undefined> {
  loading ??=
    typeof CARHOOK_TRACING === 'undefined' || CARHOOK_TRACING
      ? Promise.all([
          import('@aws-lambda-powertools/tracer'),
          import('@aws-lambda-powertools/tracer/middleware'),
        ]).then(([{ Tracer }, { captureLambdaHandler }]) => {
          const tracer = new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME || 'carhook' });
          loaded = tracer;
          return { tracer, middleware: () => captureLambdaHandler(tracer, { captureResponse: false }) };
        })
      : Promise.resolve(undefined);
  return loading;
}

/** The process's Tracer, loaded once; undefined in a bundle built without tracing. */
export async function processTracer(): Promise<Tracer | undefined> {
  return (await load())?.tracer;
}

/** The Tracer if it is loaded and tracing (on Lambda, with tracing on); else undefined. */
export function activeTracer(): Tracer | undefined {
  return loaded?.isTracingEnabled() ? loaded : undefined;
}

/**
 * Powertools' `captureLambdaHandler` (the invocation's segment, cold start annotation, errors as
 * metadata; responses never captured: they can carry tokens), over the Tracer once it is loaded.
 */
export function tracing<E, R>(): middy.MiddlewareObj<E, R> {
  let inner: middy.MiddlewareObj<E, R> | null | undefined;
  return {
    before: async (request) => {
      if (inner === undefined) {
        const tracing = await load();
        inner = tracing ? (tracing.middleware() as middy.MiddlewareObj<E, R>) : null;
      }
      await inner?.before?.(request);
    },
    after: async (request) => {
      await inner?.after?.(request);
    },
    onError: async (request) => {
      await inner?.onError?.(request);
    },
  };
}
