/**
 * The HTTP API (DESIGN.md ports table): the same Hono app behind API Gateway HTTP API (IAM on the
 * management routes, functions/handlers/http-api.ts) and the local server (bearer admin token).
 *
 * Public: `GET /health`, `GET /oauth/:brand/authorize`, `GET /oauth/callback`.
 * Management: `/enrollments…`, `/events`, `/subscriptions…` (webhooks, functions/http/subscriptions.ts).
 * Every bad input is a 4xx `{ error: { code, message, field? } }` naming the field; a 500 only for
 * what is really broken (and it is logged).
 */

import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
// The smallest router preset (same API): the HttpApi bundle stays under its size target.
import { Hono } from 'hono/tiny';
import { SecretError } from '../adapters/secrets/types';
import type { ApiError } from '../core/api';
import type { SubscriptionService } from '../core/delivery/management';
import {
  type CompleteAuthorizationResult,
  completeAuthorization,
  fleetContractSchema,
  startAuthorization,
} from '../core/enrollment';
import { enrollCheckedFleetContract, unenrollAndAnnounce } from '../core/enrollment/membership';
import { createMeteredClient } from '../core/polling/metered-client';
import { StoreError } from '../core/store/errors';
import {
  type Enrollment,
  enrollmentStatuses,
  type StoredEvent,
  type VehicleRecord,
} from '../core/store/records';
import type { RecentMetrics } from '../runtime/metrics-window';
import type { Runtime } from '../runtime/runtime';
import { bodyPolicy, jsonBody } from './body';
import { consoleRoutes } from './console';
import { type CursorCodec, createCursorCodec, cursorKeyFrom } from './cursor';
import { errorBody, sendError } from './errors';
import { createSubscriptionRoutes } from './subscriptions';

export type HttpAuth = { readonly kind: 'admin-token'; readonly token: string } | { readonly kind: 'iam' };

export interface HttpAppDeps {
  readonly runtime: Pick<Runtime, 'ports' | 'now' | 'settings' | 'oauthDeps'>;
  /** The webhook subscription service; its routes are mounted when given. */
  readonly subscriptions?: SubscriptionService;
  /** Unexpected failures, before the 500 goes out (the Powertools logger on Lambda). */
  readonly onError?: (error: unknown, context: { method: string; path: string }) => void;
  /** The invocation's AbortSignal for a request (Lambda: from the handler), passed to API calls. */
  readonly signalOf?: (c: Context) => AbortSignal | undefined;
  /** The last hour's requests, quota and detection lag, where one process sees them all (local). */
  readonly recentMetrics?: () => RecentMetrics;
  /**
   * Authenticates page cursors (HMAC, at least 32 bytes). Default: derived from the runtime's
   * OAuth state key, or from the key ring's current key, so every instance agrees without a
   * further secret.
   */
  readonly cursorKey?: Uint8Array;
}

export interface HttpAppOptions {
  readonly auth: HttpAuth;
  /**
   * Origins, besides the API's own, that the OAuth authorize route may send the user back to
   * through its `redirect` parameter (`https://console.example.com`). Default: none, only the
   * API's own origin (its callback route).
   */
  readonly oauthRedirectOrigins?: readonly string[];
}

export const MIN_ADMIN_TOKEN_LENGTH = 16;
const MAX_ID_LENGTH = 256;
const MAX_PAGE = 100;
const DAY_MS = 86_400_000;

export class HttpAppConfigError extends Error {
  override readonly name = 'HttpAppConfigError';
  readonly kind = 'InvalidConfig';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

/**
 * `Authorization: Bearer <token>`, compared in constant time (both sides hashed to 32 bytes first,
 * so neither the content nor the length leaks through timing).
 */
export function bearerAuth(token: string): MiddlewareHandler {
  if (typeof token !== 'string' || token.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new HttpAppConfigError(
      'auth.token',
      `the admin token must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters`,
    );
  }
  const expected = createHash('sha256').update(token).digest();
  return async (c, next) => {
    const match = /^Bearer\s+(\S+)$/i.exec((c.req.header('authorization') ?? '').trim());
    const given = createHash('sha256')
      .update(match?.[1] ?? '')
      .digest();
    if (!match || !timingSafeEqual(given, expected)) {
      c.header('WWW-Authenticate', 'Bearer realm="carhook"');
      return sendError(
        c,
        401,
        'Unauthorized',
        match ? 'the admin token is not valid' : 'missing "Authorization: Bearer <admin token>"',
      );
    }
    await next();
  };
}

const escapeHtml = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] ?? ch,
  );

const wantsHtml = (c: Context): boolean => (c.req.header('accept') ?? '').includes('text/html');

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

/** A page for people (browser) or JSON for tools, from the same result. */
function respond(c: Context, status: 200 | 400 | 502, title: string, json: object, html: string): Response {
  if (wantsHtml(c)) return c.html(page(title, html), status);
  return c.json(json, status);
}

/** What the API shows of an enrollment: never the token ciphertext. */
export function publicEnrollment(e: Enrollment): Record<string, unknown> {
  if (e.kind === 'fleet-contract') {
    const { id, kind, brand, status, vin, contract, createdAt, updatedAt } = e;
    return { id, kind, brand, status, vin, contract, createdAt, updatedAt };
  }
  const { id, kind, brand, status, userId, tokenExpiresAt, createdAt, updatedAt } = e;
  return {
    id,
    kind,
    brand,
    status,
    ...(userId !== undefined ? { userId } : {}),
    ...(tokenExpiresAt !== undefined ? { tokenExpiresAt } : {}),
    createdAt,
    updatedAt,
  };
}

export function publicVehicle(v: VehicleRecord): Record<string, unknown> {
  return {
    id: v.id,
    vin: v.vin,
    ...(v.brand !== undefined ? { brand: v.brand } : {}),
    ...(v.apiVehicleId !== undefined ? { apiVehicleId: v.apiVehicleId } : {}),
    paused: v.paused,
    ...(v.pauseReason !== undefined ? { pauseReason: v.pauseReason } : {}),
    ...(v.lastPolledAt !== undefined ? { lastPolledAt: v.lastPolledAt } : {}),
    ...(v.lastChangeAt !== undefined ? { lastChangeAt: v.lastChangeAt } : {}),
    createdAt: v.createdAt,
  };
}

const publicEvent = (e: StoredEvent): Record<string, unknown> => ({
  ...e.envelope,
  published: e.published,
  ...(e.publishedAt ? { publishedAt: e.publishedAt } : {}),
});

type Checked<T> = { ok: true; value: T } | { ok: false; field: string; message: string };

function checkLimit(raw: string | undefined, fallback: number): Checked<number> {
  if (raw === undefined) return { ok: true, value: fallback };
  if (!/^\d{1,4}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_PAGE) {
    return { ok: false, field: 'limit', message: `limit: must be an integer from 1 to ${MAX_PAGE}` };
  }
  return { ok: true, value: Number(raw) };
}

function checkInstant(field: string, raw: string | undefined): Checked<string | undefined> {
  if (raw === undefined) return { ok: true, value: undefined };
  const ms = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/.test(raw) ? Date.parse(raw) : Number.NaN;
  if (!Number.isFinite(ms)) {
    return {
      ok: false,
      field,
      message: `${field}: must be an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z`,
    };
  }
  return { ok: true, value: new Date(ms).toISOString() };
}

const hasControlCharacter = (s: string): boolean => [...s].some((ch) => (ch.codePointAt(0) ?? 0) < 0x20);

const checkId = (field: string, raw: string): Checked<string> =>
  raw.length > 0 && raw.length <= MAX_ID_LENGTH && !hasControlCharacter(raw)
    ? { ok: true, value: raw }
    : { ok: false, field, message: `${field}: must be 1-${MAX_ID_LENGTH} printable characters` };

function invalid(c: Context, checked: { field: string; message: string }): Response {
  return sendError(c, 400, 'InvalidInput', checked.message, { field: checked.field });
}

const TYPE = /^[a-z0-9_.]{1,100}$/;

export function createHttpApp(deps: HttpAppDeps, options: HttpAppOptions): Hono {
  const { runtime } = deps;
  const redirectOrigins = (options.oauthRedirectOrigins ?? []).map((origin, i) => {
    try {
      return new URL(origin).origin;
    } catch {
      throw new HttpAppConfigError(`oauthRedirectOrigins[${i}]`, `"${origin}" is not an absolute URL`);
    }
  });
  const { stores } = runtime.ports;
  const app = new Hono();
  const signalOf = (c: Context) => deps.signalOf?.(c);
  let codec: Promise<CursorCodec> | undefined;
  const cursors = (): Promise<CursorCodec> => {
    codec ??= (async () => {
      if (deps.cursorKey) return createCursorCodec(deps.cursorKey);
      const stateKey = runtime.settings.stateKey;
      if (stateKey !== undefined) {
        return createCursorCodec(
          cursorKeyFrom(typeof stateKey === 'string' ? Buffer.from(stateKey) : stateKey),
        );
      }
      const ring = await runtime.ports.secrets.keyRing.load();
      const key = ring.keys.get(ring.currentKeyId);
      if (!key)
        throw new SecretError('SecretMalformed', 'key ring', `key ${ring.currentKeyId} is not in the ring`);
      return createCursorCodec(cursorKeyFrom(key));
    })().catch((error: unknown) => {
      codec = undefined; // a key ring that could not be read is tried again on the next request
      throw error;
    });
    return codec;
  };

  app.onError((error, c) => {
    // A forged cursor reaches the store as bad input: the caller's mistake, not ours.
    if (error instanceof StoreError && error.kind === 'InvalidInput') {
      const field = String(error.context.field ?? 'query');
      return sendError(
        c,
        400,
        'InvalidInput',
        field === 'cursor' ? 'cursor: is not a cursor this API returned' : error.message,
        { field },
      );
    }
    if (error instanceof SecretError) {
      deps.onError?.(error, { method: c.req.method, path: c.req.path });
      return sendError(c, 503, 'NotConfigured', `Carhook is not configured yet: ${error.message}`);
    }
    deps.onError?.(error, { method: c.req.method, path: c.req.path });
    return sendError(c, 500, 'Internal', 'internal error; see the server log');
  });
  app.notFound((c) => sendError(c, 404, 'NotFound', `no route ${c.req.method} ${c.req.path}`));

  // Authentication before anything reads a body; then every body, on every route, is JSON within
  // the limit (415 / 413), counted while it streams in.
  const guard: MiddlewareHandler =
    options.auth.kind === 'admin-token'
      ? bearerAuth(options.auth.token)
      : // IAM: API Gateway authorized the caller before the request reached this app.
        async (_c, next) => {
          await next();
        };
  for (const path of [
    '/enrollments',
    '/enrollments/*',
    '/events',
    '/events/*',
    '/subscriptions',
    '/subscriptions/*',
    '/metrics',
    '/metrics/*',
  ]) {
    app.use(path, guard);
  }
  app.use('*', bodyPolicy());

  // ---- public ----------------------------------------------------------------------------------

  app.route('/', consoleRoutes());

  app.get('/health', async (c) => {
    const checks: Record<string, string> = {};
    let status: 'ok' | 'degraded' | 'unavailable' = 'ok';
    try {
      await stores.enrollments.list({ limit: 1 });
      checks.store = 'ok';
    } catch {
      checks.store = 'error';
      status = 'unavailable';
    }
    try {
      await runtime.ports.secrets.apiClient();
      checks.apiCredentials = 'ok';
    } catch (error) {
      checks.apiCredentials =
        error instanceof SecretError && error.kind === 'SecretBlank' ? 'not_configured' : 'error';
      if (status === 'ok') status = 'degraded';
    }
    return c.json(
      { status, version: runtime.settings.version ?? 'unknown', checks },
      status === 'unavailable' ? 503 : 200,
    );
  });

  app.get('/oauth/:brand/authorize', async (c) => {
    const given = c.req.query('redirect');
    const redirect = given ?? new URL('/oauth/callback', c.req.url).toString();
    const allowedOrigins = [new URL(c.req.url).origin, ...redirectOrigins];
    let redirectOrigin: string | undefined;
    try {
      redirectOrigin = new URL(redirect).origin;
    } catch {
      redirectOrigin = undefined;
    }
    if (given !== undefined && (redirectOrigin === undefined || !allowedOrigins.includes(redirectOrigin))) {
      // An open redirect would hand the authorization code to whoever wrote the link.
      return invalid(c, {
        field: 'redirect',
        message: `redirect: must be an absolute URL on ${allowedOrigins.join(', ')}; omit it to use this API's callback`,
      });
    }
    const oauth = await runtime.oauthDeps({ signal: signalOf(c) });
    const started = startAuthorization(oauth, { brand: c.req.param('brand'), redirectUri: redirect });
    if (started.kind !== 'Started') {
      return invalid(c, {
        field: started.field === 'redirectUri' ? 'redirect' : started.field,
        message: started.message,
      });
    }
    return c.redirect(started.url, 302);
  });

  app.get('/oauth/callback', async (c) => {
    const denied = c.req.query('error');
    if (denied !== undefined) {
      // spec 5.2 / RFC 6749 4.1.2.1: the user (or the server) refused; nothing to store.
      const message = `authorization was not granted: ${denied.slice(0, 100)}`;
      return respond(
        c,
        400,
        'Enrollment failed',
        errorBody('AuthorizationDenied', message),
        `<p>${escapeHtml(message)}</p>`,
      );
    }
    const oauth = await runtime.oauthDeps({ signal: signalOf(c) });
    const result = await completeAuthorization(oauth, {
      state: c.req.query('state'),
      code: c.req.query('code'),
    });
    return callbackResponse(c, result);
  });

  async function callbackResponse(c: Context, result: CompleteAuthorizationResult): Promise<Response> {
    const fail = (status: 400 | 502, code: string, message: string, extra: Record<string, unknown> = {}) =>
      respond(
        c,
        status,
        'Enrollment failed',
        errorBody(code, message, extra),
        `<p>${escapeHtml(message)}</p><p>Start again from the authorize link.</p>`,
      );
    switch (result.kind) {
      case 'InvalidState':
        return fail(400, 'InvalidState', result.message, { field: 'state', reason: result.reason });
      case 'InvalidRequest':
        return fail(400, 'InvalidInput', result.message, { field: result.field });
      case 'ExchangeFailed':
        return fail(
          400,
          'ExchangeFailed',
          `the authorization code was refused: ${apiErrorText(result.error)}`,
          { field: 'code' },
        );
      case 'UserLookupFailed':
        return fail(502, 'Upstream', `the API did not identify the user: ${apiErrorText(result.error)}`);
      case 'Enrolled': {
        const vehicles = (await stores.vehicles.listByEnrollment(result.enrollmentId)).filter(
          (v) => !v.paused,
        );
        const listed = result.discovery.kind === 'Synced';
        const json = {
          enrollmentId: result.enrollmentId,
          created: result.created,
          reactivated: result.reactivated,
          vehicles: vehicles.map(publicVehicle),
          ...(listed
            ? {}
            : {
                warning: `the vehicle list could not be read yet (${result.discovery.kind}); it is retried by discovery`,
              }),
        };
        const items = vehicles
          .map((v) => `<li>${escapeHtml(v.vin)} <small>${escapeHtml(v.id)}</small></li>`)
          .join('');
        return respond(
          c,
          200,
          'Enrolled with Carhook',
          json,
          `<p>Enrollment <code>${escapeHtml(result.enrollmentId)}</code>: ${vehicles.length} vehicle(s).</p><ul>${items}</ul>${listed ? '' : '<p>The vehicle list could not be read yet; Carhook retries.</p>'}<p><a href="/#/enrollments?enrolled=${encodeURIComponent(result.enrollmentId)}">Open this enrollment in the Carhook console</a></p>`,
        );
      }
    }
  }

  // ---- management ------------------------------------------------------------------------------

  app.get('/metrics/recent', (c) => {
    if (!deps.recentMetrics) {
      return sendError(
        c,
        404,
        'NotAvailable',
        'this runtime keeps no in-process metrics: on AWS they are in CloudWatch (namespace Carhook, the stack dashboard)',
      );
    }
    return c.json(deps.recentMetrics());
  });

  app.post('/enrollments/contracts', jsonBody(fleetContractSchema), async (c) => {
    // The API confirms the contract covers the VIN (one v1 request, drawn from the quota).
    const api = await runtime.oauthDeps({ signal: signalOf(c) });
    const client = createMeteredClient(api.access, {
      brand: runtime.settings.api.brands[0] ?? 'v1',
      ...(api.budget ? { budget: api.budget } : {}),
      now: api.now,
    }).client;
    const r = await enrollCheckedFleetContract(api, client, c.req.valid('json'));
    switch (r.kind) {
      case 'Refused':
        return sendError(c, r.check.status, r.check.code, r.check.message, { field: r.check.field });
      case 'InvalidInput':
        return sendError(c, 400, 'InvalidInput', r.message, { field: r.field });
      case 'DuplicateVin':
        return sendError(c, 409, 'Conflict', r.message, {
          field: 'vin',
          existingEnrollmentId: r.existingEnrollmentId,
        });
      case 'Enrolled':
        return c.json({ enrollmentId: r.enrollmentId, vehicleId: r.vehicleId }, 201);
    }
  });

  app.get('/enrollments', async (c) => {
    const limit = checkLimit(c.req.query('limit'), 50);
    if (!limit.ok) return invalid(c, limit);
    const codec = await cursors();
    const cursor = codec.open('enrollments', c.req.query('cursor'));
    if (!cursor.ok) return invalid(c, cursor);
    const status = c.req.query('status');
    if (status !== undefined && !(enrollmentStatuses as readonly string[]).includes(status)) {
      return invalid(c, {
        field: 'status',
        message: `status: must be one of ${enrollmentStatuses.join(', ')}`,
      });
    }
    const pageOf = await stores.enrollments.list({
      limit: limit.value,
      ...(cursor.value ? { cursor: cursor.value } : {}),
      ...(status ? { status: status as Enrollment['status'] } : {}),
    });
    const next = codec.seal('enrollments', pageOf.cursor);
    return c.json({
      enrollments: pageOf.items.map(publicEnrollment),
      ...(next ? { cursor: next } : {}),
    });
  });

  app.get('/enrollments/:id', async (c) => {
    const id = checkId('id', c.req.param('id'));
    if (!id.ok) return invalid(c, id);
    const enrollment = await stores.enrollments.get(id.value);
    if (!enrollment)
      return sendError(c, 404, 'NotFound', `no enrollment ${id.value.slice(0, 80)}`, { field: 'id' });
    const vehicles = await stores.vehicles.listByEnrollment(enrollment.id);
    return c.json({ ...publicEnrollment(enrollment), vehicles: vehicles.map(publicVehicle) });
  });

  app.delete('/enrollments/:id', async (c) => {
    const id = checkId('id', c.req.param('id'));
    if (!id.ok) return invalid(c, id);
    const r = await unenrollAndAnnounce({ stores, bus: runtime.ports.bus, now: runtime.now }, id.value);
    if (r.kind === 'NotFound')
      return sendError(c, 404, 'NotFound', `no enrollment ${id.value.slice(0, 80)}`, { field: 'id' });
    return c.json({
      enrollmentId: id.value,
      status: 'unenrolled',
      transitioned: r.transitioned,
      vehiclesPaused: r.vehiclesPaused,
    });
  });

  app.get('/events', async (c) => {
    const limit = checkLimit(c.req.query('limit'), 100);
    if (!limit.ok) return invalid(c, limit);
    const codec = await cursors();
    // By vehicle and by time are different lists: a cursor of one never continues the other.
    const list = c.req.query('vehicleId') !== undefined ? 'events-by-vehicle' : 'events';
    const cursor = codec.open(list, c.req.query('cursor'));
    if (!cursor.ok) return invalid(c, cursor);
    const since = checkInstant('since', c.req.query('since'));
    if (!since.ok) return invalid(c, since);
    const until = checkInstant('until', c.req.query('until'));
    if (!until.ok) return invalid(c, until);
    const types = (c.req.queries('type') ?? []).flatMap((t) => t.split(',')).filter((t) => t !== '');
    const badType = types.find((t) => !TYPE.test(t));
    if (badType !== undefined) {
      return invalid(c, { field: 'type', message: 'type: event types look like vehicle.alert.raised' });
    }
    const vehicleIdRaw = c.req.query('vehicleId');
    const now = runtime.now();
    const common = {
      now,
      limit: limit.value,
      ...(cursor.value ? { cursor: cursor.value } : {}),
      ...(types.length > 0 ? { types } : {}),
    };
    const sinceIso = since.value ?? new Date(now - DAY_MS).toISOString();
    // `until` is exclusive: one second ahead so what was detected "now" is included.
    const untilIso = until.value ?? new Date(now + 1000).toISOString();
    if (sinceIso >= untilIso) return invalid(c, { field: 'since', message: 'since: must be before until' });
    let result: { items: readonly StoredEvent[]; cursor?: string };
    if (vehicleIdRaw !== undefined) {
      const vehicleId = checkId('vehicleId', vehicleIdRaw);
      if (!vehicleId.ok) return invalid(c, vehicleId);
      result = await stores.events.listByVehicle({
        ...common,
        vehicleId: vehicleId.value,
        since: sinceIso,
        until: untilIso,
      });
    } else {
      result = await stores.events.listByTime({ ...common, since: sinceIso, until: untilIso });
    }
    const next = codec.seal(list, result.cursor);
    return c.json({
      events: result.items.map(publicEvent),
      ...(next ? { cursor: next } : {}),
    });
  });

  if (deps.subscriptions) {
    app.route(
      '/',
      createSubscriptionRoutes({
        service: deps.subscriptions,
        cursors,
        ...(deps.onError
          ? { onError: (e: unknown) => deps.onError?.(e, { method: 'ANY', path: '/subscriptions' }) }
          : {}),
      }),
    );
  }
  return app;
}

function apiErrorText(error: ApiError): string {
  return `${error.kind}${'message' in error && typeof error.message === 'string' ? `: ${error.message.slice(0, 200)}` : ''}`;
}
