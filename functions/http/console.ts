/**
 * Serves the console (console/src, bundled into console-assets.generated.ts) at `/`: one HTML page,
 * its script and its stylesheet, from this origin only. The page holds no secret: it asks for the
 * admin token and calls the management routes with it, so the routes' own guard still decides.
 */
import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import { CONSOLE_CSS, CONSOLE_JS } from './console-assets.generated';

/** Scripts, styles and requests from this origin only; no framing; no inline code. */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const version = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 12);
const JS_VERSION = version(CONSOLE_JS);
const CSS_VERSION = version(CONSOLE_CSS);

const HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Carhook console</title>
<link rel="stylesheet" href="/console/app.css?v=${CSS_VERSION}">
<script type="module" src="/console/app.js?v=${JS_VERSION}"></script>
</head>
<body><div id="app"><noscript>The Carhook console needs JavaScript.</noscript></div></body>
</html>
`;

export function consoleRoutes(): Hono {
  const app = new Hono();
  const secure = { 'content-security-policy': CONSOLE_CSP, 'x-content-type-options': 'nosniff' };
  app.get('/', (c) => c.html(HTML, 200, { ...secure, 'cache-control': 'no-cache' }));
  // Versioned by content in the page's links, so a new console is never mixed with a cached old one.
  const asset = (body: string, type: string) =>
    new Response(body, {
      headers: { ...secure, 'content-type': type, 'cache-control': 'public, max-age=31536000, immutable' },
    });
  app.get('/console/app.js', () => asset(CONSOLE_JS, 'text/javascript; charset=utf-8'));
  app.get('/console/app.css', () => asset(CONSOLE_CSS, 'text/css; charset=utf-8'));
  return app;
}
