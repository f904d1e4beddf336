/**
 * API Gateway HTTP API (payload v2) → the Hono app. Management routes are IAM-authorized by API
 * Gateway (so `auth: iam`); OAuth and /health are public. The console's copies of the management
 * routes (`/console-api/…`, authorized by the admin-token Lambda authorizer) reach the same routes
 * with the prefix taken off.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { Context as HonoContext } from 'hono';
import { type APIGatewayProxyResult, handle, type LambdaEvent } from 'hono/aws-lambda';
import { createHttpApp } from '../http/app';
import { CONSOLE_API_PREFIX } from '../http/console-authorizer';
import { type AwsRuntime, createAwsRuntime, lazy } from '../runtime/aws';
import { ALL_SERVICES } from '../runtime/aws-services';
import { withPowertools } from '../runtime/lambda';
import { logger } from '../runtime/observability';
import { createWebhooks } from '../runtime/webhooks';

type SignalledContext = Context & { readonly carhookSignal?: AbortSignal };

/**
 * `/console-api/subscriptions` → `/subscriptions`: API Gateway authorized it (the admin token), so
 * the app serves it as the management route it copies. Other paths are left as they are.
 */
export function withoutConsolePrefix(event: APIGatewayProxyEventV2): APIGatewayProxyEventV2 {
  const strip = (path: string) =>
    path.startsWith(`${CONSOLE_API_PREFIX}/`) ? path.slice(CONSOLE_API_PREFIX.length) : path;
  const rawPath = strip(event.rawPath);
  if (rawPath === event.rawPath) return event;
  return {
    ...event,
    rawPath,
    requestContext: {
      ...event.requestContext,
      http: { ...event.requestContext.http, path: strip(event.requestContext.http.path) },
    },
  };
}

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
          consoleApiBase: CONSOLE_API_PREFIX,
          // CARHOOK_OAUTH_REDIRECT_ORIGINS (CDK prop oauthRedirectOrigins): origins besides the API's own.
          oauthRedirectOrigins: aws.config.oauthRedirectOrigins,
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
    return (await app)(withoutConsolePrefix(event) as unknown as LambdaEvent, withSignal);
  });
}

export const handler = createHttpApiHandler(
  lazy(() =>
    createAwsRuntime({
      needs: ['secrets', 'bus', 'deliveryQueue'],
      webhooks: createWebhooks,
      services: ALL_SERVICES,
    }),
  ),
);
