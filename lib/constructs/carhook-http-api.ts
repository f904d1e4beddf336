import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpMethod, type HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  HttpIamAuthorizer,
  HttpLambdaAuthorizer,
  HttpLambdaResponseType,
} from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { CONSOLE_API_PREFIX } from '../../functions/http/console-authorizer';
import { CARHOOK_DEFAULTS } from '../config';
import { CarhookConfigError, requireIntegerInRange } from '../validation';

/** `public`: anyone on the internet; `iam`: SigV4-signed by a principal allowed `execute-api:Invoke`. */
export type RouteAccess = 'public' | 'iam';

export interface CarhookRoute {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** API Gateway path syntax (`{id}`), as the Hono app declares it with `:id`. */
  readonly path: string;
  readonly access: RouteAccess;
  /** Why a public route is public (recorded with the cdk-nag acknowledgement). */
  readonly whyPublic?: string;
}

/**
 * Every route of the Hono app (functions/http/app.ts and subscriptions.ts; a test compares the two).
 * Public: the two OAuth addresses a user's browser visits while enrolling and `/health`. Everything
 * that reads or changes enrollments, events or subscriptions is IAM-authorized.
 */
export const CARHOOK_HTTP_ROUTES: readonly CarhookRoute[] = [
  {
    method: 'GET',
    path: '/health',
    access: 'public',
    whyPublic: 'a liveness check for monitors; it answers only a status, the version and which checks pass',
  },
  {
    method: 'GET',
    path: '/openapi.json',
    access: 'public',
    whyPublic:
      'the OpenAPI description of the routes, generated from their schemas; the same for everyone, it holds no data',
  },
  {
    method: 'GET',
    path: '/oauth/{brand}/authorize',
    access: 'public',
    whyPublic:
      "the enrolling user's browser opens it without AWS credentials (OAuth authorization code flow); it only redirects to the provider's consent page with a signed, expiring state",
  },
  {
    method: 'GET',
    path: '/oauth/callback',
    access: 'public',
    whyPublic:
      "the provider redirects the user's browser here with the authorization code; a request without a valid signed, unexpired state is refused",
  },
  {
    method: 'GET',
    path: '/',
    access: 'public',
    whyPublic:
      'the console page: static HTML that holds no data; every call it makes goes to an authorized route',
  },
  {
    method: 'GET',
    path: '/console/app.js',
    access: 'public',
    whyPublic: "the console's script, the same bytes for everyone; it holds no data or secret",
  },
  {
    method: 'GET',
    path: '/console/app.css',
    access: 'public',
    whyPublic: "the console's stylesheet, the same bytes for everyone",
  },
  {
    method: 'GET',
    path: '/favicon.ico',
    access: 'public',
    whyPublic: "the console's icon, which browsers ask for; the same bytes for everyone",
  },
  { method: 'GET', path: '/metrics/recent', access: 'iam' },
  { method: 'GET', path: '/capacity', access: 'iam' },
  { method: 'POST', path: '/enrollments/contracts', access: 'iam' },
  { method: 'GET', path: '/enrollments', access: 'iam' },
  { method: 'GET', path: '/enrollments/{id}', access: 'iam' },
  { method: 'DELETE', path: '/enrollments/{id}', access: 'iam' },
  { method: 'GET', path: '/events', access: 'iam' },
  { method: 'GET', path: '/events/{id}', access: 'iam' },
  { method: 'GET', path: '/event-types', access: 'iam' },
  { method: 'GET', path: '/vehicles/{id}', access: 'iam' },
  { method: 'POST', path: '/vehicles/{id}/pause', access: 'iam' },
  { method: 'POST', path: '/vehicles/{id}/resume', access: 'iam' },
  { method: 'GET', path: '/vehicles/{id}/state', access: 'iam' },
  { method: 'POST', path: '/subscriptions', access: 'iam' },
  { method: 'GET', path: '/subscriptions', access: 'iam' },
  { method: 'GET', path: '/subscriptions/{id}', access: 'iam' },
  { method: 'PATCH', path: '/subscriptions/{id}', access: 'iam' },
  { method: 'DELETE', path: '/subscriptions/{id}', access: 'iam' },
  { method: 'POST', path: '/subscriptions/{id}/rotate-secret', access: 'iam' },
  { method: 'POST', path: '/subscriptions/{id}/test', access: 'iam' },
  { method: 'POST', path: '/subscriptions/{id}/sample', access: 'iam' },
  { method: 'GET', path: '/subscriptions/{id}/backlog', access: 'iam' },
  { method: 'POST', path: '/subscriptions/{id}/enable', access: 'iam' },
  { method: 'POST', path: '/subscriptions/{id}/disable', access: 'iam' },
  { method: 'GET', path: '/subscriptions/{id}/deliveries', access: 'iam' },
  { method: 'GET', path: '/subscriptions/{id}/dead-letters', access: 'iam' },
  { method: 'POST', path: '/subscriptions/{id}/replay', access: 'iam' },
  { method: 'POST', path: '/subscriptions/{id}/recover', access: 'iam' },
];

/**
 * Prefix of the console's copy of the management routes: `/console-api/subscriptions` is
 * `/subscriptions` authorized by the admin token instead of IAM (a browser cannot sign SigV4). The
 * HTTP function takes off the same constant.
 */
export { CONSOLE_API_PREFIX };

/** The console's copies of the IAM routes, as API Gateway declares them. */
export const consoleRoutesOf = (routes: readonly CarhookRoute[]): CarhookRoute[] =>
  routes
    .filter((r) => r.access === 'iam')
    .map((r) => ({ method: r.method, path: `${CONSOLE_API_PREFIX}${r.path}`, access: 'iam' as const }));

export interface CarhookHttpApiProps {
  /** The function behind every route (functions/handlers/http-api.ts). */
  readonly handler: IFunction;
  /**
   * The console authorizer (functions/handlers/console-authorizer.ts). When given, every IAM route
   * is also declared under CONSOLE_API_PREFIX with this Lambda authorizer (the admin token as a
   * bearer), for the console in a browser; the IAM routes stay as they are for machine callers.
   * @default - no console routes: the console page loads but cannot sign in on AWS
   */
  readonly consoleAuthorizer?: IFunction;
  /**
   * How long API Gateway reuses an authorizer answer for the same Authorization header. A rotated
   * token's predecessor keeps working at most this long plus the authorizer's own 60 s cache.
   * @default Duration.minutes(1)
   */
  readonly consoleAuthorizerCacheTtl?: Duration;
  /** @default CARHOOK_DEFAULTS.httpThrottle */
  readonly throttle?: { readonly rateLimit: number; readonly burstLimit: number };
  /** @default CARHOOK_DEFAULTS.accessLogRetention */
  readonly accessLogRetention?: RetentionDays;
  /** @default CARHOOK_HTTP_ROUTES */
  readonly routes?: readonly CarhookRoute[];
}

/**
 * API Gateway HTTP API in front of the HTTP function: one route per route of the app (no `$default`
 * catch-all, so an unknown path never reaches the function), IAM authorization on management
 * routes, stage throttling, and JSON access logs that name the caller and the route but never
 * carry the query string (the OAuth callback's `code` and `state` travel in it).
 */
export class CarhookHttpApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;
  /** The API's base URL, e.g. `https://abc123.execute-api.eu-west-1.amazonaws.com/`. */
  readonly url: string;
  /** The console routes' authorizer, when `consoleAuthorizer` was given. */
  readonly consoleAuthorizer?: HttpLambdaAuthorizer;

  constructor(scope: Construct, id: string, props: CarhookHttpApiProps) {
    super(scope, id);
    const throttle = props.throttle ?? CARHOOK_DEFAULTS.httpThrottle;
    requireIntegerInRange('throttle.rateLimit', throttle.rateLimit, 1, 10_000);
    requireIntegerInRange('throttle.burstLimit', throttle.burstLimit, 1, 5_000);

    this.api = new HttpApi(this, 'Api', {
      apiName: Stack.of(this).stackName,
      description: 'Carhook: OAuth enrollment (public) and management (IAM) API',
      // Our own stage below, with throttling and access logs.
      createDefaultStage: false,
    });
    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.accessLogRetention ?? CARHOOK_DEFAULTS.accessLogRetention,
    });
    this.stage = this.api.addStage('Stage', {
      // `$default`: no stage segment in the URL, so the OAuth callback address is `<url>/oauth/callback`.
      stageName: '$default',
      autoDeploy: true,
      throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            requestTime: '$context.requestTime',
            sourceIp: '$context.identity.sourceIp',
            caller: '$context.identity.userArn',
            routeKey: '$context.routeKey',
            status: '$context.status',
            responseLength: '$context.responseLength',
            latencyMs: '$context.responseLatency',
            integrationLatencyMs: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
            authorizerError: '$context.authorizer.error',
          }),
        ),
      },
    });
    this.url = this.stage.url;

    const integration = new HttpLambdaIntegration('Handler', props.handler);
    const iam = new HttpIamAuthorizer();
    if (props.consoleAuthorizer) {
      this.consoleAuthorizer = new HttpLambdaAuthorizer('ConsoleToken', props.consoleAuthorizer, {
        authorizerName: 'console-admin-token',
        // Payload 2.0 simple responses: the function answers { isAuthorized }.
        responseTypes: [HttpLambdaResponseType.SIMPLE],
        // Without the header API Gateway answers 401 before invoking the function.
        identitySource: ['$request.header.Authorization'],
        resultsCacheTtl: props.consoleAuthorizerCacheTtl ?? Duration.minutes(1),
      });
    }
    const routes = props.routes ?? CARHOOK_HTTP_ROUTES;
    if (this.consoleAuthorizer) {
      for (const route of consoleRoutesOf(routes)) {
        this.api.addRoutes({
          path: route.path,
          methods: [HttpMethod[route.method]],
          integration,
          authorizer: this.consoleAuthorizer,
        });
      }
    }
    for (const route of routes) {
      const [created] = this.api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration,
        ...(route.access === 'iam' ? { authorizer: iam } : {}),
      });
      if (route.access === 'public' && created) {
        if (route.whyPublic === undefined) {
          throw new CarhookConfigError(
            `routes ${route.method} ${route.path}`,
            'is public: say why (whyPublic)',
          );
        }
        Validations.of(created).acknowledge({
          id: 'AwsSolutions-APIG4',
          reason: `${route.method} ${route.path} is public by design: ${route.whyPublic}.`,
        });
      }
    }
  }
}
