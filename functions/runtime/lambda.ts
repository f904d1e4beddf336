/**
 * The one middy stack of every Carhook Lambda: Powertools tracer (./tracing.ts), logger (Lambda context, cold
 * start) and metrics (flushed after each invocation), and middy's early timeout, whose AbortSignal
 * the handler passes down to every outgoing fetch so a slow upstream never eats the whole timeout.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { logger, metrics } from './observability';
import { tracing } from './tracing';

/** Time kept back from the Lambda timeout: in-flight requests are aborted this early. */
export const ABORT_BEFORE_TIMEOUT_MS = 2_000;

export type CarhookLambda<E, R> = (event: E, context: Context, signal: AbortSignal) => Promise<R>;

export function withPowertools<E, R>(fn: CarhookLambda<E, R>): (event: E, context: Context) => Promise<R> {
  const handler = middy<E, R>({ timeoutEarlyInMillis: ABORT_BEFORE_TIMEOUT_MS })
    .use(tracing<E, R>())
    .use(injectLambdaContext(logger, { resetKeys: true }))
    // No ColdStart metric: the runtime emits exactly the names of lib/config.ts CARHOOK_METRICS.
    .use(logMetrics(metrics))
    .handler((event: E, context: Context, options: { signal: AbortSignal }) =>
      fn(event, context, options.signal),
    );
  return (event, context) => handler(event, context) as Promise<R>;
}
