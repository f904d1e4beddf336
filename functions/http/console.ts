/**
 * Serves the console (console/src, bundled into console-assets.generated.ts) at `/`: one HTML page,
 * its script and its stylesheet, from this origin only. The page holds no secret: it asks for the
 * admin token and calls the management routes with it, so the routes' own guard still decides.
 */
import { createHash } from 'node:crypto';
import { Hono } from 'hono/tiny';
import { CONSOLE_CSS, CONSOLE_JS } from './console-assets.generated';
import { RouteBook } from './openapi';

/** Scripts, styles and requests from this origin only; no framing; no inline code. */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const version = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 12);
const JS_VERSION = version(CONSOLE_JS);
const CSS_VERSION = version(CONSOLE_CSS);

/** The console's icon: a car on the header's colour (SVG; browsers take it at /favicon.ico). */
const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1d2330"/>' +
  '<path d="M7 19l2-6h14l2 6v5h-3v-2H10v2H7z" fill="#7fb0ff"/><circle cx="11" cy="19" r="1.6" fill="#1d2330"/>' +
  '<circle cx="21" cy="19" r="1.6" fill="#1d2330"/></svg>';

const escapeAttr = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** The page; `apiBase` tells the script where the management routes are for a browser. */
const html = (apiBase: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="carhook-api-base" content="${escapeAttr(apiBase)}">
<title>Carhook console</title>
<link rel="icon" href="/favicon.ico" type="image/svg+xml">
<link rel="stylesheet" href="/console/app.css?v=${CSS_VERSION}">
<script type="module" src="/console/app.js?v=${JS_VERSION}"></script>
</head>
<body><div id="app"><noscript>The Carhook console needs JavaScript.</noscript></div></body>
</html>
`;

export interface ConsoleOptions {
  /** Prefix of the management routes the console calls (`/console-api` on AWS); default `''`. */
  readonly apiBase?: string;
}

/** The console's page and assets, registered (and documented) on `app`. */
export function addConsoleRoutes(app: Hono, book: RouteBook, options: ConsoleOptions = {}): void {
  const secure = { 'content-security-policy': CONSOLE_CSP, 'x-content-type-options': 'nosniff' };
  const page = html(options.apiBase ?? '');
  const common = { tag: 'console', access: 'public' } as const;
  book.add(
    app,
    {
      ...common,
      method: 'get',
      path: '/',
      operationId: 'getConsole',
      summary: 'The web console (a static page; it asks for the admin token)',
      responses: { 200: { description: 'The page.', mediaType: 'text/html' } },
    },
    (c) => c.html(page, 200, { ...secure, 'cache-control': 'no-cache' }),
  );
  // Versioned by content in the page's links, so a new console is never mixed with a cached old one.
  const asset = (body: string, type: string) =>
    new Response(body, {
      headers: { ...secure, 'content-type': type, 'cache-control': 'public, max-age=31536000, immutable' },
    });
  book.add(
    app,
    {
      ...common,
      method: 'get',
      path: '/console/app.js',
      operationId: 'getConsoleScript',
      summary: "The console's script",
      responses: { 200: { description: 'JavaScript.', mediaType: 'text/javascript' } },
    },
    () => asset(CONSOLE_JS, 'text/javascript; charset=utf-8'),
  );
  book.add(
    app,
    {
      ...common,
      method: 'get',
      path: '/favicon.ico',
      operationId: 'getFavicon',
      summary: "The console's icon (browsers ask for it)",
      responses: { 200: { description: 'SVG.', mediaType: 'image/svg+xml' } },
    },
    () =>
      new Response(FAVICON, {
        headers: { ...secure, 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400' },
      }),
  );
  book.add(
    app,
    {
      ...common,
      method: 'get',
      path: '/console/app.css',
      operationId: 'getConsoleStylesheet',
      summary: "The console's stylesheet",
      responses: { 200: { description: 'CSS.', mediaType: 'text/css' } },
    },
    () => asset(CONSOLE_CSS, 'text/css; charset=utf-8'),
  );
}

/** The console alone, as a Hono app (tests, other hosts). */
export function consoleRoutes(options: ConsoleOptions = {}): Hono {
  const app = new Hono();
  addConsoleRoutes(app, new RouteBook(), options);
  return app;
}
