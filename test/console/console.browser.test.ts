/**
 * The console driven as an operator would, in headless Chromium (Debian's `chromium` package,
 * driven by playwright-core; no browser download), against `carhook dev --demo`.
 * With CARHOOK_SCREENSHOTS=<dir> the main pages are saved there (docs/console holds the committed ones).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnyJson,
  type DevProcess,
  freePort,
  json,
  startDev,
  startRecorder,
  until,
} from '../e2e/support';

const TOKEN = 'console-admin-token-0123456789abcdef';
const CHROMIUM =
  process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);
const SHOTS = process.env.CARHOOK_SCREENSHOTS;

describe('console in a browser', () => {
  let dev: DevProcess | undefined;
  let browser: Browser | undefined;
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    if (!CHROMIUM)
      throw new Error('chromium is not installed: apt-get install -y chromium (.ci/run does it)');
    dev = await startDev({
      args: ['--demo', '--poll-interval', '1s', '--vehicles', '2', '--seed', '3', '--quota', '3000'],
      token: TOKEN,
      port: await freePort(),
      simPort: await freePort(),
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await dev?.kill();
    for (const c of cleanups) await c();
  });

  const shot = async (page: Page, name: string) => {
    if (!SHOTS) return;
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  };

  it('signs in, shows vehicles and delivered events, manages a subscription end to end, with no console error', {
    timeout: 150_000,
  }, async () => {
    const running = dev as DevProcess;
    const api = (path: string, init: Parameters<typeof json>[1] = {}) =>
      json(`${running.api}${path}`, { token: TOKEN, ...init });
    const page = await (browser as Browser).newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page: ${e.message}`));

    // Sign in: a wrong token is refused, the right one opens the vehicles page; never in the URL.
    await page.goto(`${running.api}/`);
    await page.getByLabel('Admin token').fill('wrong-token-wrong-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    problems.length = 0; // the refused sign-in's 401 is logged by the browser itself
    await page.getByLabel('Admin token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Enrollments and vehicles' }).waitFor();
    expect(page.url()).not.toContain(TOKEN);

    // The demo's vehicles, by VIN.
    const world = (await json(`${running.sim}/_sim/world`)).body;
    const vin: string = world.vehicles[0].vin;
    await page.getByText(vin).first().waitFor({ timeout: 30_000 });
    await shot(page, 'vehicles');

    // A vehicle's page: its connection, each read, its events; paused and resumed from there.
    await page.getByRole('link', { name: vin }).first().click();
    await page.getByRole('heading', { name: `Vehicle ${vin}` }).waitFor();
    await page.getByTestId('connection').getByText('polled', { exact: true }).waitFor();
    expect(await page.locator('tr[data-read]').count()).toBe(5);
    await page.locator('ol.timeline li').first().waitFor({ timeout: 30_000 });
    await shot(page, 'vehicle');
    await page.getByRole('button', { name: 'Pause polling' }).click();
    await page.getByText(`Paused ${vin}: it is not polled until resumed`).waitFor();
    await page.getByTestId('connection').getByText('paused', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Resume polling' }).click();
    await page.getByText(`Resumed ${vin}: polled again`).waitFor();
    await page.getByTestId('connection').getByText('polled', { exact: true }).waitFor();

    // The demo receiver got events: the event log and its subscription's deliveries show them.
    await page.getByRole('link', { name: 'Events' }).click();
    await page.locator('tr[data-type]').first().waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Payload' }).first().click();
    await expect.poll(() => page.locator('pre').first().textContent()).toContain('"schemaVersion"');
    // Filtered by a type picked from the catalogue, then by the VIN of one of those events.
    const types = () =>
      page
        .locator('tr[data-type]')
        .evaluateAll((rows) => [...new Set(rows.map((r) => r.getAttribute('data-type')))]);
    await page.getByLabel('Event type').selectOption('vehicle.alert.raised');
    await expect.poll(types, { timeout: 30_000 }).toEqual(['vehicle.alert.raised']);
    const eventVin =
      (await page.locator('tr[data-type] td[data-label="Vehicle"] a').first().textContent()) ?? '';
    expect(eventVin).toMatch(/^[A-Z0-9]{17}$/);
    await page.getByLabel('VIN').fill(eventVin);
    await expect
      .poll(() => page.locator('tr[data-type] td[data-label="Vehicle"]').allTextContents())
      .toEqual(expect.arrayContaining([eventVin]));
    expect(new Set(await page.locator('tr[data-type] td[data-label="Vehicle"]').allTextContents())).toEqual(
      new Set([eventVin]),
    );
    await shot(page, 'events');
    // An event's page: its vehicle and its delivery to the demo subscription.
    await page.locator('tr[data-type] a').first().click();
    await page.getByRole('heading', { name: /^Event evt_/ }).waitFor();
    await page.getByRole('link', { name: eventVin }).waitFor();
    await page.locator('tr[data-subscription]').getByText('succeeded').first().waitFor({ timeout: 30_000 });
    await shot(page, 'event');
    const demoSub: AnyJson = (await api('/subscriptions')).body.items[0];
    await until(
      'a delivered demo event',
      async () =>
        (await api(`/subscriptions/${demoSub.id}/deliveries`)).body.items.find(
          (a: AnyJson) => a.statusCode < 300,
        ),
      running,
      45_000,
    );

    // Create a subscription to a local endpoint; its secret is shown once.
    const recorder = await startRecorder(() => 204);
    cleanups.push(recorder.close);
    await page.getByRole('link', { name: 'Subscriptions' }).click();
    await page.getByLabel('Endpoint URL').fill(recorder.url);
    await page.getByLabel(/Event types/).fill('vehicle.alert.*');
    await page.getByLabel('Description (optional)').fill('alerts for the on-call');
    await page.getByRole('button', { name: 'Create subscription' }).click();
    const secret = await page.getByTestId('secret').textContent();
    expect(secret).toMatch(/^whsec_/);
    const created: AnyJson = (await api('/subscriptions')).body.items.find(
      (s: AnyJson) => s.url === recorder.url,
    );
    expect(created.eventTypes).toEqual(['vehicle.alert.*']);
    const row = page.locator(`tr[data-subscription="${created.id}"]`);
    await row.getByTestId('description').getByText('alerts for the on-call').waitFor();
    await shot(page, 'subscriptions');

    // Test event: delivered to the endpoint, and the console says what the endpoint answered.
    await row.getByRole('button', { name: 'Send test' }).click();
    await page
      .getByText(new RegExp(`Test event sent to ${created.id}: success \\(HTTP 204\\) in \\d+ ms`))
      .waitFor();
    await until('the test delivery', () => (recorder.requests.length > 0 ? true : undefined), running);
    await row.getByText(/^healthy$/).waitFor();

    // Rotate: confirmed first, then a new secret, shown once.
    await row.getByRole('button', { name: 'Rotate secret' }).click();
    const rotate = page.getByRole('dialog', { name: /Rotate the signing secret/ });
    await rotate.getByText(/signed with both for 24 hours/).waitFor();
    await rotate.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByText(/Rotated the secret/).waitFor();
    const rotated = await page.getByTestId('secret').textContent();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);

    // Disable (confirmed: what it misses is kept), an alert while disabled, then enable: the
    // confirmation shows the event waiting, and enabling delivers it with its own id.
    await row.getByRole('button', { name: 'Disable' }).click();
    const disabling = page.getByRole('dialog', { name: /^Disable / });
    await disabling.getByText(/The events it misses stay in the event log/).waitFor();
    await disabling.getByRole('button', { name: 'Disable' }).click();
    await row.getByText('disabled', { exact: true }).first().waitFor();
    expect((await api(`/subscriptions/${created.id}`)).body.status).toBe('disabled');
    const vehicleApiId: string = world.users.find((u: AnyJson) => u.vehicleIds.length > 0).vehicleIds[0];
    const missed = await json(`${running.sim}/_sim/vehicles/${vehicleApiId}/alerts`, {
      method: 'POST',
      body: { severity: 'low' },
    });
    expect(missed.status).toBe(201);
    await until(
      'the missed alert in the event log',
      async () =>
        (await api('/events?type=vehicle.alert.raised')).body.events.find(
          (e: AnyJson) => e.data.alertId === missed.body.id,
        ),
      running,
      45_000,
    );
    await row.getByRole('button', { name: 'Enable' }).click();
    const enabling = page.getByRole('dialog', { name: /^Enable / });
    await enabling.getByTestId('backlog').waitFor();
    await shot(page, 'subscriptions-enable');
    await enabling.getByRole('button', { name: /Enable and deliver \d+ missed event/ }).click();
    await page
      .getByText(new RegExp(`Enabled ${created.id}: 0 parked delivery\\(ies\\) resumed, \\d+ missed`))
      .waitFor();
    await row.getByText('active', { exact: true }).waitFor();
    await until(
      'the missed alert delivered on enable',
      () => recorder.requests.find((r) => r.body.includes(missed.body.id)),
      running,
      45_000,
    );

    // An alert raised in the simulator reaches the new subscription; its deliveries page shows the
    // attempt (answered 204), and replaying that one event sends it again with the same id.
    const alert = await json(`${running.sim}/_sim/vehicles/${vehicleApiId}/alerts`, {
      method: 'POST',
      body: { severity: 'high' },
    });
    expect(alert.status).toBe(201);
    const alertDelivery = await until(
      'the alert delivered to the new subscription',
      () => recorder.requests.find((r) => r.body.includes(alert.body.id)),
      running,
      45_000,
    );
    await row.getByRole('link', { name: 'Deliveries' }).click();
    const attempt = page.locator(`tr[data-event="${alertDelivery.headers['webhook-id']}"]`);
    await attempt.getByText('204').waitFor({ timeout: 15_000 });
    await page.locator('tr[data-event]').getByText('webhook.test').first().waitFor();
    // Its details: the request headers sent (the signature, not the secret) and the answer.
    await attempt.getByRole('button', { name: 'Details' }).click();
    const detail = page.getByTestId('attempt-detail');
    await detail.getByText('Request headers').waitFor();
    expect(await detail.textContent()).toContain(`webhook-id: ${alertDelivery.headers['webhook-id']}`);
    expect(await detail.textContent()).not.toContain(String(rotated).slice('whsec_'.length));
    await detail.getByText('Response 204').waitFor();
    await shot(page, 'deliveries');
    // Filtered to failures only: none for this receiver.
    await page.getByLabel('Status').selectOption('failed');
    await expect.poll(() => page.locator('tr[data-event]').count()).toBe(0);
    await page.getByLabel('Status').selectOption('');
    await attempt.getByRole('button', { name: 'Replay' }).click();
    await page.getByText(/Replay rpl_\S+: 1 event\(s\) queued/).waitFor();
    await until(
      'the replayed delivery',
      () =>
        recorder.requests.filter((r) => r.headers['webhook-id'] === alertDelivery.headers['webhook-id'])
          .length >= 2
          ? true
          : undefined,
      running,
    );

    // The catalogue: each type's trigger and delay; a sample sent to the new subscription, signed
    // like any delivery and marked as a sample.
    await page.goto(`${running.api}/#/catalogue?type=vehicle.alert.fixed`);
    await page.getByRole('heading', { name: 'Event catalogue' }).waitFor();
    await page.getByLabel('Send samples to').selectOption({ label: recorder.url });
    const fixedType = page.locator('details[id="type-vehicle.alert.fixed"]');
    await fixedType.getByText('An active alert is fixed').waitFor();
    await shot(page, 'catalogue');
    await fixedType.getByRole('button', { name: 'Send a sample of vehicle.alert.fixed' }).click();
    await page.getByText(/Sample vehicle\.alert\.fixed sent \(evt_\S+\): success \(HTTP 204\)/).waitFor();
    const sample = recorder.requests.at(-1);
    expect(JSON.parse(sample?.body ?? '{}')).toMatchObject({
      type: 'vehicle.alert.fixed',
      data: { sample: true, sequence: 0 },
    });

    // An unknown page is answered as such.
    await page.goto(`${running.api}/#/nowhere/at-all`);
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    await page.getByText('#/nowhere/at-all').waitFor();

    // Quota and lag: the requests of the last minutes against the limit (3000 a minute here).
    await page.getByRole('link', { name: 'Quota & lag' }).click();
    await page.getByRole('img', { name: 'API requests per minute' }).waitFor();
    await page.getByText('limit 3000').waitFor();
    expect(Number(await page.getByTestId('last-requests').textContent())).toBeGreaterThanOrEqual(0);
    expect(await page.locator('svg.chart').first().locator('rect').count()).toBe(60);
    // Time labels under the bars (every 10 minutes and the last), and the history found at
    // enrollment counted apart from the lag.
    expect(await page.locator('svg.chart').first().locator('text.time').allTextContents()).toHaveLength(7);
    expect(await page.locator('svg.chart').first().locator('text.time').last().textContent()).toMatch(
      /^\d\d:\d\d$/,
    );
    await page
      .getByTestId('history')
      .getByText(/such event\(s\) this hour, not counted above/)
      .waitFor();
    await shot(page, 'quota');

    // The API reference: the server's own OpenAPI document, rendered; operated from the keyboard.
    await page.getByRole('link', { name: 'API', exact: true }).click();
    await page.getByRole('heading', { name: 'API reference' }).waitFor();
    await page.getByText(/OpenAPI 3\.1\.0/).waitFor();
    const listEvents = page.locator('details#op-listEvents');
    await listEvents.locator('summary').focus();
    await page.keyboard.press('Enter');
    await listEvents.getByRole('cell', { name: 'vehicleId' }).waitFor();
    expect(await listEvents.getAttribute('open')).not.toBeNull();
    const documented = await page.locator('details.operation').count();
    const document = (await api('/openapi.json')).body as AnyJson;
    expect(documented).toBe(
      Object.values(document.paths as Record<string, object>).reduce(
        (n, ops) => n + Object.keys(ops).length,
        0,
      ),
    );
    await shot(page, 'reference');
    await page.goto(`${running.api}/#/deliveries/${encodeURIComponent(created.id)}`);

    // Narrow screens: the tables still read (one cell per line), nothing overflows sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    await attempt.getByText('204').first().waitFor();
    // A string, evaluated in the page: this file is typechecked without the DOM's types.
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - innerWidth');
    await shot(page, 'deliveries-phone');
    expect(overflow).toBeLessThanOrEqual(0);

    expect(problems).toEqual([]);
  });
});
