import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { assetsFile, consoleAssets } from '../../console/build';
import { CONSOLE_CSP, consoleRoutes } from '../../functions/http/console';
import { CONSOLE_JS } from '../../functions/http/console-assets.generated';

describe('console assets', () => {
  it('keeps the committed bundle in step with console/src', async () => {
    expect(await consoleAssets()).toBe(readFileSync(assetsFile, 'utf8'));
  });

  it('bundles no schema: the contract reaches the browser as types only', () => {
    expect(CONSOLE_JS).not.toContain('toJSONSchema');
    expect(CONSOLE_JS.length).toBeLessThan(100_000);
  });

  it('answers /favicon.ico (browsers ask for it) with an SVG icon, not a 404', async () => {
    const icon = await consoleRoutes().request('/favicon.ico');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(await icon.text()).toMatch(/^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  });

  it('serves the page, its script and stylesheet from this origin only, versioned by content', async () => {
    const app = consoleRoutes();
    const page = await app.request('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
    const html = await page.text();
    const js = /src="(\/console\/app\.js\?v=[\w-]{12})"/.exec(html)?.[1];
    const css = /href="(\/console\/app\.css\?v=[\w-]{12})"/.exec(html)?.[1];
    expect(js).toBeDefined();
    expect(css).toBeDefined();
    // No inline script: the policy would block it.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    const script = await app.request(js ?? '');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toContain('immutable');
    expect(await script.text()).toContain('Admin token');
    const style = await app.request(css ?? '');
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect((await app.request('/console/other.js')).status).toBe(404);
  });
});
