import { describe, expect, it } from 'vitest';
import { arnMatches, matchRoute } from '../../bin/rehearsal/http-front';
import type { HttpRoute } from '../../bin/rehearsal/model';

const route = (routeKey: string): HttpRoute => ({
  routeKey,
  authorizationType: 'NONE',
  functionArn: 'arn:fn',
  payloadFormatVersion: '2.0',
  timeoutMs: 30_000,
});
const routes = [
  'GET /subscriptions/{id}',
  'GET /subscriptions/test',
  'ANY /files/{proxy+}',
  'POST /subscriptions',
  '$default',
].map(route);

describe("API Gateway's route matching, as the rehearsal's front does it", () => {
  it('prefers the exact path, then parameters, then a greedy path, then $default', () => {
    expect(matchRoute(routes, 'GET', '/subscriptions/test')?.route.routeKey).toBe('GET /subscriptions/test');
    expect(matchRoute(routes, 'GET', '/subscriptions/sub_1')).toEqual({
      route: routes[0],
      params: { id: 'sub_1' },
    });
    expect(matchRoute(routes, 'DELETE', '/files/a/b')?.params).toEqual({ proxy: 'a/b' });
    expect(matchRoute(routes, 'PUT', '/subscriptions')?.route.routeKey).toBe('$default');
    expect(matchRoute(routes.slice(0, 4), 'PUT', '/subscriptions')).toBeUndefined();
  });

  it("matches a Lambda permission's source ARN with its wildcards", () => {
    const arn = 'arn:aws:execute-api:eu-west-1:1:api/$default/GET/oauth/{brand}/authorize';
    expect(arnMatches('arn:aws:execute-api:eu-west-1:1:api/*/*/oauth/{brand}/authorize', arn)).toBe(true);
    expect(arnMatches('arn:aws:execute-api:eu-west-1:1:api/*/*/oauth/callback', arn)).toBe(false);
  });
});
