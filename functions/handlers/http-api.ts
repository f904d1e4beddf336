/**
 * API Gateway HTTP API (payload v2) → the Hono app. Management routes are IAM-authorized by API
 * Gateway (so `auth: iam`); OAuth and /health are public.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { Context as HonoContext } from 'hono';
import { type APIGatewayProxyResult, handle, type LambdaEvent } from 'hono/aws-lambda';
import { createHttpApp } from '../http/app';
import { type AwsRuntime, createAwsRuntime, lazy } from '../runtime/aws';
import { RUNTIME_ENV } from '../runtime/config';
import { withPowertools } from '../runtime/lambda';
import { logger } from '../runtime/observability';
import { createWebhooks } from '../runtime/webhooks';

type SignalledContext = Context & { readonly carhookSignal?: AbortSignal };

export function createHttpApiHandler(get: () => AwsRuntime) {
  // Built on the first request: the subscription routes need the key ring (Secrets Manager).
  let app: Promise<ReturnType<typeof handle>> | undefined;
  const build = async () => {
    const aws = get();
    const webhooks = await aws.webhooks();
    return handle(
      createHttpApp(
        {
          runtime: aws.runtime,
          ...(webhooks ? { subscriptions: webhooks.service } : {}),
          onError: (error, where) => logger.error('request failed', { ...where, error: error as Error }),
          signalOf: (c: HonoContext) =>
            (c.env as { lambdaContext?: SignalledContext } | undefined)?.lambdaContext?.carhookSignal,
        },
        {
          auth: { kind: 'iam' },
          // CARHOOK_OAUTH_REDIRECT_ORIGINS (CDK prop oauthRedirectOrigins): origins besides the API's own.
          oauthRedirectOrigins: (process.env[RUNTIME_ENV.oauthRedirectOrigins] ?? '')
            .split(',')
            .map((o) => o.trim())
            .filter((o) => o !== ''),
        },
      ),
    );
  };
  return withPowertools<APIGatewayProxyEventV2, APIGatewayProxyResult>(async (event, context, signal) => {
    // The invocation's signal rides on a context derived from Lambda's (methods inherited).
    const withSignal: SignalledContext = Object.create(context, { carhookSignal: { value: signal } });
    // hono declares its own copy of the payload v2 shape; @types/aws-lambda's is the same event.
    app ??= build().catch((error: unknown) => {
      app = undefined; // not cached: the next invocation tries again
      throw error;
    });
    return (await app)(event as unknown as LambdaEvent, withSignal);
  });
}

export const handler = createHttpApiHandler(
  lazy(() => createAwsRuntime({ needs: ['secrets', 'bus', 'deliveryQueue'], webhooks: createWebhooks })),
);
