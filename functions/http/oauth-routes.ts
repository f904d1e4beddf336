/**
 * The public OAuth routes a user's browser visits while enrolling: authorize (a redirect to the
 * provider's consent page) and the callback (the provider sends the browser back here).
 *
 * A browser (`Accept: text/html`) that completes enrollment is redirected to the console's
 * enrollment page, which lists the vehicles found; a tool gets the same result as JSON.
 */
import type { Context, Hono } from 'hono';
import * as z from 'zod';
import type { ApiError } from '../core/api';
import {
  type CompleteAuthorizationResult,
  completeAuthorization,
  startAuthorization,
} from '../core/enrollment';
import type { Stores } from '../core/store/ports';
import type { Runtime } from '../runtime/runtime';
import { oauthEnrolledSchema } from './contract';
import { errorBody, sendError } from './errors';
import { errorResponse, type RouteBook } from './openapi';
import { publicVehicle } from './views';

export interface OAuthRoutesDeps {
  readonly runtime: Pick<Runtime, 'oauthDeps'>;
  readonly stores: Pick<Stores, 'vehicles'>;
  readonly signalOf: (c: Context) => AbortSignal | undefined;
  /** Origins besides the API's own that `redirect` may name. */
  readonly redirectOrigins: readonly string[];
}

const escapeHtml = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] ?? ch,
  );

const wantsHtml = (c: Context): boolean => (c.req.header('accept') ?? '').includes('text/html');

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

/** Where a browser lands after enrolling: the console's enrollment page for this enrollment. */
export const consoleEnrollmentPath = (enrollmentId: string): string =>
  `/#/enrollments?enrolled=${encodeURIComponent(enrollmentId)}`;

function apiErrorText(error: ApiError): string {
  return `${error.kind}${'message' in error && typeof error.message === 'string' ? `: ${error.message.slice(0, 200)}` : ''}`;
}

export function addOAuthRoutes(app: Hono, book: RouteBook, deps: OAuthRoutesDeps): void {
  const { runtime, stores, signalOf, redirectOrigins } = deps;

  book.add(
    app,
    {
      method: 'get',
      path: '/oauth/:brand/authorize',
      operationId: 'authorizeEnrollment',
      summary: "Start enrolling a user: redirects to the brand's consent page",
      tag: 'enrollment',
      access: 'public',
      params: z.object({ brand: z.string() }),
      query: z.object({
        redirect: z
          .string()
          .optional()
          .meta({ description: "Where the provider sends the user back (default: this API's callback)." }),
      }),
      responses: {
        302: { description: "Redirect to the provider's consent page." },
        400: errorResponse('An unknown brand, or a redirect outside the allowed origins.'),
      },
    },
    async (c, { params, query }) => {
      const given = query.redirect;
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
        return sendError(
          c,
          400,
          'InvalidInput',
          `redirect: must be an absolute URL on ${allowedOrigins.join(', ')}; omit it to use this API's callback`,
          { field: 'redirect' },
        );
      }
      const oauth = await runtime.oauthDeps({ signal: signalOf(c) });
      const started = startAuthorization(oauth, { brand: params.brand, redirectUri: redirect });
      if (started.kind !== 'Started') {
        const field = started.field === 'redirectUri' ? 'redirect' : started.field;
        return sendError(c, 400, 'InvalidInput', started.message, { field });
      }
      return c.redirect(started.url, 302);
    },
  );

  book.add(
    app,
    {
      method: 'get',
      path: '/oauth/callback',
      operationId: 'completeEnrollment',
      summary: 'The provider sends the user back here; stores the enrollment and lists its vehicles',
      description:
        "A browser (Accept: text/html) is redirected (303) to the console's enrollment page for the new enrollment; other callers get JSON.",
      tag: 'enrollment',
      access: 'public',
      query: z.object({
        code: z.string().optional(),
        state: z.string().optional(),
        error: z.string().optional().meta({ description: 'Set by the provider when consent was refused.' }),
      }),
      responses: {
        200: { description: 'Enrolled (JSON callers).', schema: oauthEnrolledSchema },
        303: { description: "Enrolled: a browser is sent to the console's enrollment page." },
        400: errorResponse('Refused consent, a bad or replayed state, or a refused code.'),
        502: errorResponse('The provider did not identify the user.'),
      },
    },
    async (c, { query }) => {
      if (query.error !== undefined) {
        // RFC 6749 (authorization code grant): the user or the server refused; nothing to store.
        const message = `authorization was not granted: ${query.error.slice(0, 100)}`;
        return failure(c, 400, 'AuthorizationDenied', message);
      }
      const oauth = await runtime.oauthDeps({ signal: signalOf(c) });
      const result = await completeAuthorization(oauth, { state: query.state, code: query.code });
      return callbackResponse(c, result);
    },
  );

  function failure(
    c: Context,
    status: 400 | 502,
    code: string,
    message: string,
    extra: Record<string, unknown> = {},
  ): Response {
    if (wantsHtml(c)) {
      return c.html(
        page(
          'Enrollment failed',
          `<p>${escapeHtml(message)}</p><p>Start again from the authorize link.</p><p><a href="/#/enrollments">Open the Carhook console</a></p>`,
        ),
        status,
      );
    }
    return c.json(errorBody(code, message, extra), status);
  }

  async function callbackResponse(c: Context, result: CompleteAuthorizationResult): Promise<Response> {
    switch (result.kind) {
      case 'InvalidState':
        return failure(c, 400, 'InvalidState', result.message, { field: 'state', reason: result.reason });
      case 'InvalidRequest':
        return failure(c, 400, 'InvalidInput', result.message, { field: result.field });
      case 'ExchangeFailed':
        return failure(
          c,
          400,
          'ExchangeFailed',
          `the authorization code was refused: ${apiErrorText(result.error)}`,
          { field: 'code' },
        );
      case 'UserLookupFailed':
        return failure(
          c,
          502,
          'Upstream',
          `the API did not identify the user: ${apiErrorText(result.error)}`,
        );
      case 'Enrolled': {
        // 303 See Other: the browser follows with a GET of the console page (the callback is not
        // repeated on reload or back, and the one-time code leaves the address bar).
        if (wantsHtml(c)) return c.redirect(consoleEnrollmentPath(result.enrollmentId), 303);
        const vehicles = (await stores.vehicles.listByEnrollment(result.enrollmentId)).filter(
          (v) => !v.paused,
        );
        return c.json({
          enrollmentId: result.enrollmentId,
          created: result.created,
          reactivated: result.reactivated,
          vehicles: vehicles.map(publicVehicle),
          ...(result.discovery.kind === 'Synced'
            ? {}
            : {
                warning: `the vehicle list could not be read yet (${result.discovery.kind}); it is retried by discovery`,
              }),
        });
      }
    }
  }
}
