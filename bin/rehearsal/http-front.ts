/**
 * API Gateway's HTTP API, played for the rehearsal (a test harness): one local HTTP server per API
 * that routes a request by the template's route keys, authorizes it as the route says, and invokes
 * the integration's function with the payload format 2.0 event, answering with what it returns.
 *
 * - `AWS_IAM`: the request must be SigV4-signed (service `execute-api`) by a known principal, and
 *   its policies must allow `execute-api:Invoke` on the route's ARN; else 403, as API Gateway does.
 * - `CUSTOM`: the identity source must be present (else 401), then the Lambda authorizer decides
 *   (simple responses), its answer cached for the authorizer's TTL by identity.
 * - Every function API Gateway invokes needs a Lambda permission for `apigateway.amazonaws.com`
 *   whose source ARN matches the route (or the authorizer): without one, 500.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { PolicyEvaluator, Principals } from './iam';
import type { FunctionHost } from './lambda-host';
import { type Deployment, functionByArn, type HttpApi, type HttpRoute } from './model';
import { signedBy, verifySignature } from './signature';

export interface FrontIncident {
  readonly route: string;
  readonly message: string;
}

export interface HttpFront {
  readonly url: string;
  close(): Promise<void>;
}

export interface FrontOptions {
  readonly api: HttpApi;
  readonly deployment: Deployment;
  readonly hosts: ReadonlyMap<string, FunctionHost>;
  readonly principals: Principals;
  readonly evaluator: PolicyEvaluator;
  readonly onIncident: (incident: FrontIncident) => void;
}

/** The route for `method path`: exact keys first, then the one with fewest parameters, greedy last, `$default` at the end. */
export function matchRoute(
  routes: readonly HttpRoute[],
  method: string,
  path: string,
): { route: HttpRoute; params: Record<string, string> } | undefined {
  const candidates: { route: HttpRoute; params: Record<string, string>; score: number }[] = [];
  for (const route of routes) {
    if (route.routeKey === '$default') continue;
    const [m, template = ''] = route.routeKey.split(' ');
    if (m !== 'ANY' && m !== method) continue;
    const params = matchPath(template, path);
    if (params) candidates.push({ route, params, score: scoreOf(template) + (m === 'ANY' ? 0.5 : 0) });
  }
  candidates.sort((a, b) => a.score - b.score);
  const best = candidates[0];
  if (best) return { route: best.route, params: best.params };
  const fallback = routes.find((r) => r.routeKey === '$default');
  return fallback ? { route: fallback, params: {} } : undefined;
}

function scoreOf(template: string): number {
  return template
    .split('/')
    .reduce((s, seg) => s + (seg.endsWith('+}') ? 100 : seg.startsWith('{') ? 1 : 0), 0);
}

function matchPath(template: string, path: string): Record<string, string> | undefined {
  const t = template.split('/');
  const p = path.split('/');
  const params: Record<string, string> = {};
  for (let i = 0; i < t.length; i++) {
    const seg = t[i] ?? '';
    if (seg.startsWith('{') && seg.endsWith('+}')) {
      params[seg.slice(1, -2)] = p.slice(i).map(decodeURIComponent).join('/');
      return p.length > i ? params : undefined;
    }
    const part = p[i];
    if (part === undefined) return undefined;
    if (seg.startsWith('{') && seg.endsWith('}')) params[seg.slice(1, -1)] = decodeURIComponent(part);
    else if (seg !== part) return undefined;
  }
  return t.length === p.length ? params : undefined;
}

/** AWS matches a permission's source ARN with `*` wildcards. */
export function arnMatches(pattern: string, arn: string): boolean {
  const re = new RegExp(
    `^${pattern
      .split('*')
      .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return re.test(arn);
}

export async function startHttpFront(options: FrontOptions): Promise<HttpFront> {
  const { api, deployment } = options;
  const cache = new Map<string, { allowed: boolean; until: number }>();
  const executeArn = (rest: string) =>
    `arn:aws:execute-api:${deployment.region}:${deployment.account}:${api.id}/${rest}`;
  const permitted = (functionArn: string, sourceArn: string) =>
    deployment.permissions.some(
      (p) =>
        p.functionArn === functionArn &&
        p.principal === 'apigateway.amazonaws.com' &&
        (!p.sourceArn || arnMatches(p.sourceArn, sourceArn)),
    );

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.onIncident({ route: `${req.method} ${req.url}`, message: `front failed: ${String(error)}` });
      send(res, 500, { message: 'Internal Server Error' });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://front');
    const method = req.method ?? 'GET';
    const matched = matchRoute(api.routes, method, url.pathname);
    if (!matched) return send(res, 404, { message: 'Not Found' });
    const { route, params } = matched;
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), [v ?? ''].flat().join(',')]),
    );
    // IAM authorizes the path requested; Lambda permissions are matched against the route's own
    // path, parameters as declared (`/oauth/{brand}/authorize`), which is what API Gateway sends as source.
    const routeArn = executeArn(`$default/${method}${url.pathname}`);
    const [, template = ''] = route.routeKey.split(' ');
    const sourceArn = executeArn(
      route.routeKey === '$default' ? '$default/$default' : `$default/${method}${template}`,
    );
    let authorizer: Record<string, unknown> | undefined;

    if (route.authorizationType === 'AWS_IAM') {
      const by = signedBy(req.headers);
      const principal = by && options.principals.byAccessKey(by.accessKeyId);
      if (!by || !principal) return send(res, 403, { message: 'Forbidden' });
      if (
        !(await verifySignature(
          { method, url: req.url ?? '/', headers, body: body.toString('utf8') },
          by,
          principal.credentials,
        ))
      ) {
        return send(res, 403, {
          message: 'The request signature we calculated does not match the signature you provided.',
        });
      }
      const decision = await options.evaluator.decide(principal, {
        action: 'execute-api:Invoke',
        resource: routeArn,
        context: {},
      });
      if (!decision.allowed) {
        return send(res, 403, {
          Message: `User: ${principal.arn} is not authorized to perform: execute-api:Invoke on resource: ${routeArn}`,
        });
      }
      authorizer = {
        iam: {
          accessKey: by.accessKeyId,
          accountId: deployment.account,
          userArn: principal.arn,
          callerId: principal.label,
        },
      };
    } else if (route.authorizationType === 'CUSTOM') {
      const auth = route.authorizerId ? api.authorizers.get(route.authorizerId) : undefined;
      if (!auth) return send(res, 500, { message: 'Internal Server Error' });
      const identity = auth.identitySource.map(
        (s) => headers[s.replace('$request.header.', '').toLowerCase()],
      );
      if (identity.some((v) => !v)) return send(res, 401, { message: 'Unauthorized' });
      const key = `${auth.id}:${identity.join(',')}`;
      let cached = cache.get(key);
      if (!cached || cached.until < Date.now()) {
        const authorizerArn = executeArn(`authorizers/${auth.id}`);
        const host = hostOf(auth.functionArn);
        if (!host || !permitted(auth.functionArn, authorizerArn)) {
          options.onIncident({
            route: route.routeKey,
            message: `API Gateway may not invoke the authorizer ${auth.functionArn} (no Lambda permission for ${authorizerArn})`,
          });
          return send(res, 500, { message: 'Internal Server Error' });
        }
        const outcome = await host.invoke({
          ...eventOf(req, url, body, headers, route, params, undefined),
          type: 'REQUEST',
          routeArn,
          identitySource: identity,
        });
        if (!outcome.ok) {
          options.onIncident({
            route: route.routeKey,
            message: `authorizer ${host.fn.logicalId} failed: ${outcome.errorType}: ${outcome.errorMessage}`,
          });
          return send(res, 500, { message: 'Internal Server Error' });
        }
        const allowed = (outcome.value as { isAuthorized?: unknown } | null)?.isAuthorized === true;
        cached = { allowed, until: Date.now() + auth.ttlSeconds * 1000 };
        if (auth.ttlSeconds > 0) cache.set(key, cached);
      }
      if (!cached.allowed) return send(res, 403, { message: 'Forbidden' });
      authorizer = { lambda: {} };
    }

    const host = hostOf(route.functionArn);
    if (!host || !permitted(route.functionArn, sourceArn)) {
      options.onIncident({
        route: route.routeKey,
        message: `API Gateway may not invoke ${route.functionArn} for ${sourceArn} (no Lambda permission)`,
      });
      return send(res, 500, { message: 'Internal Server Error' });
    }
    const outcome = await host.invoke(eventOf(req, url, body, headers, route, params, authorizer));
    if (!outcome.ok) {
      options.onIncident({
        route: route.routeKey,
        message: `${host.fn.logicalId} failed: ${outcome.kind}: ${outcome.errorType}: ${outcome.errorMessage}`,
      });
      return send(res, outcome.kind === 'timeout' ? 503 : 500, {
        message: outcome.kind === 'timeout' ? 'Service Unavailable' : 'Internal Server Error',
      });
    }
    writeResult(res, outcome.value);
  }

  function hostOf(functionArn: string): FunctionHost | undefined {
    const fn = functionByArn(deployment, functionArn);
    return fn ? options.hosts.get(fn.logicalId) : undefined;
  }

  function eventOf(
    req: IncomingMessage,
    url: URL,
    body: Buffer,
    headers: Record<string, string>,
    route: HttpRoute,
    params: Record<string, string>,
    authorizer: Record<string, unknown> | undefined,
  ): APIGatewayProxyEventV2 {
    const now = Date.now();
    const text = body.toString('utf8');
    const binary = body.length > 0 && Buffer.from(text, 'utf8').length !== body.length;
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) query[k] = query[k] === undefined ? v : `${query[k]},${v}`;
    const cookies = headers.cookie?.split(';').map((c) => c.trim());
    return {
      version: '2.0',
      routeKey: route.routeKey,
      rawPath: url.pathname,
      rawQueryString: url.search.slice(1),
      ...(cookies ? { cookies } : {}),
      headers,
      ...(url.search ? { queryStringParameters: query } : {}),
      ...(Object.keys(params).length > 0 ? { pathParameters: params } : {}),
      requestContext: {
        accountId: deployment.account,
        apiId: api.id,
        domainName: headers.host ?? 'localhost',
        domainPrefix: api.id,
        http: {
          method: req.method ?? 'GET',
          path: url.pathname,
          protocol: 'HTTP/1.1',
          sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
          userAgent: headers['user-agent'] ?? '',
        },
        requestId: randomUUID(),
        routeKey: route.routeKey,
        stage: '$default',
        time: new Date(now).toUTCString(),
        timeEpoch: now,
        ...(authorizer ? { authorizer } : {}),
      },
      ...(body.length > 0 ? { body: binary ? body.toString('base64') : text } : {}),
      isBase64Encoded: binary,
    } as APIGatewayProxyEventV2;
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A payload 2.0 response: `{statusCode, headers, body, isBase64Encoded, cookies}`, or a bare value API Gateway wraps as JSON. */
function writeResult(res: ServerResponse, value: unknown): void {
  const r = value as {
    statusCode?: number;
    headers?: Record<string, string>;
    body?: string;
    isBase64Encoded?: boolean;
    cookies?: string[];
  } | null;
  if (!r || typeof r !== 'object' || typeof r.statusCode !== 'number') {
    send(res, 200, value ?? '');
    return;
  }
  const headers: Record<string, string | string[]> = { ...(r.headers ?? {}) };
  if (r.cookies?.length) headers['set-cookie'] = r.cookies;
  res.writeHead(r.statusCode, headers);
  res.end(r.body === undefined ? '' : r.isBase64Encoded ? Buffer.from(r.body, 'base64') : r.body);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
