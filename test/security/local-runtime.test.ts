/**
 * The local runtime under a hostile neighbour, hostile input and a crash, black-box: one
 * `carhook dev` child process (as a user starts it), inspected from the operating system
 * (/proc) and spoken to over HTTP only.
 *
 * With CARHOOK_SECURITY_REPORT=<file> the figures (inputs tried, refused, 5xx, memory) are
 * written there as JSON, for BENCHMARKS.md's "Reliability" section.
 */

import { readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DevProcess,
  freePort,
  runCarhook,
  startDev,
  startRecorder,
  stepUntil,
  until,
} from '../e2e/support';
import { alive, childrenOf, commandOf, listeners, rssOf, streamChunked } from './support';

const TOKEN = 'security-suite-admin-token-0123456789';

interface Tried {
  readonly name: string;
  readonly status: number;
  readonly field?: string;
}

const tried: Tried[] = [];
const figures: Record<string, unknown> = {};

describe('carhook dev against hostile neighbours, input and crashes', () => {
  let dev: DevProcess;
  let dataDir = '';
  let dynamoPort = 0;
  let port = 0;
  let simPort = 0;
  let rx: Awaited<ReturnType<typeof startRecorder>>;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'carhook-security-'));
    port = await freePort();
    simPort = await freePort();
    dev = await startDev({
      args: ['--data-dir', dataDir, '--vehicles', '2', '--poll-interval', '30s', '--clock', 'simulated'],
      token: TOKEN,
      port,
      simPort,
      readyTimeoutMs: 90_000,
    });
    dynamoPort = Number(/DynamoDB Local {2}http:\/\/127\.0\.0\.1:(\d+)/.exec(dev.output())?.[1]);
    rx = await startRecorder(() => 204);
  }, 120_000);

  afterAll(async () => {
    await rx?.close();
    await dev?.kill();
    if (process.env.CARHOOK_SECURITY_REPORT) {
      const refused = tried.filter((t) => t.status >= 400 && t.status < 500).length;
      const serverErrors = tried.filter((t) => t.status >= 500).length;
      await writeFile(
        process.env.CARHOOK_SECURITY_REPORT,
        `${JSON.stringify({ ...figures, inputs: tried.length, refused, serverErrors, tried }, null, 2)}\n`,
      );
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  async function send(
    method: string,
    path: string,
    init: { body?: string; contentType?: string | null } = {},
  ): Promise<{
    status: number;
    json: { error?: { code?: string; field?: string; message?: string } } & Record<string, unknown>;
  }> {
    const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` };
    const type = init.contentType === undefined ? 'application/json' : init.contentType;
    if (init.body !== undefined && type !== null) headers['content-type'] = type;
    const res = await fetch(`${dev.api}${path}`, {
      method,
      headers,
      ...(init.body !== undefined ? { body: init.body } : {}),
    });
    const text = await res.text();
    let json = {};
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      json = { raw: text };
    }
    return { status: res.status, json };
  }

  /** One hostile input: it must be refused with `status`, naming `field`. */
  async function refuses(
    name: string,
    method: string,
    path: string,
    init: { body?: string; contentType?: string | null },
    expected: { status: number; field: string },
  ): Promise<void> {
    const res = await send(method, path, init);
    tried.push({
      name,
      status: res.status,
      ...(res.json.error?.field ? { field: res.json.error.field } : {}),
    });
    expect(res.status, `${name}: ${JSON.stringify(res.json)}`).toBe(expected.status);
    expect(res.json.error?.field, name).toBe(expected.field);
  }

  async function createSubscription(url: string): Promise<{ id: string; secret: string; url: string }> {
    const res = await send('POST', '/subscriptions', { body: JSON.stringify({ url }) });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    return res.json as unknown as { id: string; secret: string; url: string };
  }

  it('serves DynamoDB Local on 127.0.0.1 only, as the OS sees its listening sockets', () => {
    expect(dynamoPort).toBeGreaterThan(0);
    const onPort = listeners().filter((l) => l.port === dynamoPort);
    expect(onPort.length).toBeGreaterThan(0);
    for (const l of onPort) expect(['127.0.0.1', '::ffff:127.0.0.1']).toContain(l.address);
    // The API and the simulator as well (the default --host).
    for (const p of [port, simPort]) {
      for (const l of listeners().filter((x) => x.port === p)) {
        expect(['127.0.0.1', '::ffff:127.0.0.1']).toContain(l.address);
      }
    }
    figures.dynamoListeners = onPort.map((l) => `${l.address}:${l.port}`);
  });

  it('keeps the data directory 0700 and every file in it 0600, DynamoDB Local’s database included', async () => {
    // The event log and the database exist once something was written.
    await until('the database file', () =>
      readdirSync(join(dataDir, 'dynamodb')).length > 0 ? true : undefined,
    );
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    const modes: Record<string, string> = {};
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        const mode = statSync(path).mode & 0o777;
        modes[path.slice(dataDir.length + 1)] = mode.toString(8);
        if (entry.isDirectory()) {
          expect(mode, path).toBe(0o700);
          walk(path);
        } else expect(mode, path).toBe(0o600);
      }
    };
    walk(dataDir);
    expect(Object.keys(modes)).toEqual(
      expect.arrayContaining(['local.json', 'carhook.lock', 'dynamodb', 'dynamodb/shared-local-instance.db']),
    );
    figures.fileModes = modes;
  });

  it('never prints the admin token the user supplied', () => {
    expect(dev.output()).not.toContain(TOKEN);
    expect(dev.output()).toContain('admin token     from the environment');
  });

  it('refuses a second runtime on the same data directory, naming the process that holds it', async () => {
    const second = await runCarhook(['dev', '--data-dir', dataDir, '--port', '0', '--sim-port', '0'], {
      CARHOOK_ADMIN_TOKEN: TOKEN,
    });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`in use by another Carhook runtime (process ${dev.child.pid})`);
  }, 60_000);

  it('answers 413 to a streamed 100 MB chunked body, reading no more than the limit', async () => {
    const pid = dev.child.pid ?? 0;
    const before = rssOf(pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssOf(pid));
    }, 20);
    const results = [];
    for (const path of ['/subscriptions', '/enrollments/contracts']) {
      results.push(
        await streamChunked(`${dev.api}${path}`, 100 * 1024 * 1024, {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
        }),
      );
    }
    clearInterval(sampler);
    for (const r of results) {
      tried.push({ name: '100 MB chunked body', status: r.status, field: 'body' });
      expect(r.status).toBe(413);
      expect(JSON.parse(r.body).error).toMatchObject({ code: 'PayloadTooLarge', field: 'body' });
    }
    const growth = peak - before;
    figures.chunked = {
      bodyBytesOffered: 100 * 1024 * 1024,
      bytesWrittenBeforeAnswer: results.map((r) => r.written),
      rssBeforeMb: Math.round(before / 1048576),
      rssPeakMb: Math.round(peak / 1048576),
      rssGrowthMb: Math.round(growth / 1048576),
    };
    // Buffered whole, 100 MB would show; a bounded read stays within a few MB of noise.
    expect(growth).toBeLessThan(40 * 1024 * 1024);
  }, 60_000);

  it('refuses forged, edited, oversized and foreign cursors with a 400 naming cursor', async () => {
    // Fleet contracts the API knows: the simulator's vehicles.
    const world = (await (await fetch(`http://127.0.0.1:${simPort}/_sim/world`)).json()) as {
      vehicles: { vin: string; contract: string; brand: string }[];
    };
    for (const car of world.vehicles.slice(0, 3)) {
      const r = await send('POST', '/enrollments/contracts', {
        body: JSON.stringify({ vin: car.vin, contract: car.contract, brand: car.brand }),
      });
      expect(r.status).toBe(201);
    }
    const first = await send('GET', '/enrollments?limit=1');
    const real = String(first.json.cursor);
    expect(real).toMatch(/^[\w-]+\.[\w-]+$/);
    const next = await send('GET', `/enrollments?limit=1&cursor=${encodeURIComponent(real)}`);
    expect(next.status).toBe(200);
    const sub = await createSubscription(`${rx.url}/cursor`);
    const edited = `${real.slice(0, -2)}${real.endsWith('AA') ? 'BB' : 'AA'}`;
    const forgedKey = Buffer.from(JSON.stringify({ pk: 'x'.repeat(1200), sk: 'y' })).toString('base64url');
    const cursors: [string, string][] = [
      ['a forged 1.1 KB cursor', forgedKey],
      ['a 3,000 character cursor', 'a'.repeat(3000)],
      ['an edited cursor', edited],
      ['a cursor with its MAC removed', real.split('.')[0] ?? ''],
      ['JSON as a cursor', '{"pk":{"S":"x"}}'],
      ['an empty cursor', ''],
    ];
    for (const path of [
      '/enrollments',
      '/events',
      '/subscriptions',
      `/subscriptions/${sub.id}/deliveries`,
      `/subscriptions/${sub.id}/dead-letters`,
    ]) {
      for (const [name, cursor] of cursors) {
        await refuses(
          `${name} on ${path}`,
          'GET',
          `${path}?cursor=${encodeURIComponent(cursor)}`,
          {},
          {
            status: 400,
            field: 'cursor',
          },
        );
      }
    }
    // A real cursor of one list does not continue another.
    await refuses(
      'an enrollments cursor on /subscriptions',
      'GET',
      `/subscriptions?cursor=${real}`,
      {},
      {
        status: 400,
        field: 'cursor',
      },
    );
  }, 60_000);

  it('refuses bodies that are not JSON with a 415 naming content-type', async () => {
    const body = JSON.stringify({ url: `${rx.url}/ct` });
    const sub = await createSubscription(`${rx.url}/ct0`);
    for (const [path, method] of [
      ['/subscriptions', 'POST'],
      ['/enrollments/contracts', 'POST'],
      [`/subscriptions/${sub.id}`, 'PATCH'],
      [`/subscriptions/${sub.id}/replay`, 'POST'],
    ] as const) {
      for (const type of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/jsonx',
        null,
      ]) {
        await refuses(
          `${method} ${path} as ${type ?? 'no content type'}`,
          method,
          path,
          { body, contentType: type },
          {
            status: 415,
            field: 'content-type',
          },
        );
      }
    }
    // Still accepted: JSON with a charset parameter.
    const ok = await send('POST', '/subscriptions', { body, contentType: 'application/json; charset=utf-8' });
    expect(ok.status).toBe(201);
  });

  it('refuses NUL, lone surrogates and unknown fields with a 400 naming the field', async () => {
    const sub = await createSubscription(`${rx.url}/fields`);
    const cases: [string, string, string, string, string][] = [
      ['NUL in a URL', 'POST', '/subscriptions', JSON.stringify({ url: `${rx.url}/a\u0000b` }), 'url'],
      ['a lone surrogate in a URL', 'POST', '/subscriptions', `{"url":"${rx.url}/\\ud800"}`, 'url'],
      [
        'a lone surrogate in a description',
        'POST',
        '/subscriptions',
        `{"url":"${rx.url}/x","description":"a\\udc00b"}`,
        'description',
      ],
      [
        'NUL in an event type',
        'PATCH',
        `/subscriptions/${sub.id}`,
        JSON.stringify({ eventTypes: ['vehicle.\u0000'] }),
        'eventTypes[0]',
      ],
      ['NUL in a field name', 'POST', '/subscriptions', `{"url":"${rx.url}/x","a\\u0000":1}`, 'a\u0000'],
      [
        'NUL in a VIN',
        'POST',
        '/enrollments/contracts',
        JSON.stringify({ vin: 'VF1AB0000000\u000000', contract: 'C', brand: 'C' }),
        'vin',
      ],
      [
        'an unknown field on a fleet contract',
        'POST',
        '/enrollments/contracts',
        JSON.stringify({ vin: 'VF1AB000000000999', contract: 'C', brand: 'C', contractId: 'x' }),
        'contractId',
      ],
      [
        'an unknown field on a subscription',
        'POST',
        '/subscriptions',
        JSON.stringify({ url: `${rx.url}/x`, secret: 'whsec_x' }),
        'secret',
      ],
      [
        'an unknown field on a patch',
        'PATCH',
        `/subscriptions/${sub.id}`,
        JSON.stringify({ status: 'active' }),
        'status',
      ],
      [
        'an unknown field on a replay',
        'POST',
        `/subscriptions/${sub.id}/replay`,
        JSON.stringify({ since: '2026-01-01T00:00:00Z', limit: 5 }),
        'limit',
      ],
      ['malformed JSON', 'POST', '/subscriptions', '{"url":', 'body'],
      ['a JSON array', 'POST', '/enrollments/contracts', '[1,2]', 'body'],
      ['deep nesting', 'POST', '/subscriptions', `${'['.repeat(200)}${']'.repeat(200)}`, 'body'],
    ];
    for (const [name, method, path, body, field] of cases) {
      await refuses(name, method, path, { body }, { status: 400, field });
    }
  });

  it('refuses webhook URLs aimed at Carhook’s own ports, accepts other loopback receivers, and stores the normalised URL', async () => {
    const own: [string, string][] = [
      ['the HTTP API', `http://127.0.0.1:${port}/subscriptions`],
      ['the HTTP API over localhost', `http://localhost:${port}/health`],
      ['the HTTP API over ::1', `http://[::1]:${port}/health`],
      ['the simulator control API', `http://127.0.0.1:${simPort}/_sim/stats/reset`],
      ['the simulator over 127.0.0.2', `http://127.0.0.2:${simPort}/_sim/stats/reset`],
      ['DynamoDB Local', `http://127.0.0.1:${dynamoPort}/`],
      ['DynamoDB Local over a decimal IP', `http://2130706433:${dynamoPort}/`],
      ['0.0.0.0 (this host)', `http://0.0.0.0:${port}/`],
      ['a private address not allowed', 'http://192.168.1.10:9000/hooks'],
      ['the metadata service', 'http://169.254.169.254/latest/meta-data/'],
    ];
    for (const [name, url] of own) {
      await refuses(
        `a webhook to ${name}`,
        'POST',
        '/subscriptions',
        { body: JSON.stringify({ url }) },
        {
          status: 400,
          field: 'url',
        },
      );
    }
    const refusal = await send('POST', '/subscriptions', {
      body: JSON.stringify({ url: `http://127.0.0.1:${simPort}/_sim/stats/reset` }),
    });
    expect(refusal.json.error?.message).toMatch(/Carhook's own simulator/);
    // Patching an existing subscription onto an own port is refused the same way.
    const sub = await createSubscription(rx.url);
    await refuses(
      'a patch onto the API port',
      'PATCH',
      `/subscriptions/${sub.id}`,
      {
        body: JSON.stringify({ url: `http://127.0.0.1:${port}/` }),
      },
      { status: 400, field: 'url' },
    );
    // What is stored (and later requested) is the WHATWG form, not the text as typed.
    const typed = `${rx.url.replace('/hooks', '')}\\@evil.example/x`;
    const normalised = await createSubscription(typed);
    expect(normalised.url).toBe(new URL(typed).href);
    expect(normalised.url).toBe(`${rx.url.replace('/hooks', '')}/@evil.example/x`);
  });

  it('signs with every secret rotated within the overlap: all three verify after a double rotation', async () => {
    const sub = await createSubscription(`${rx.url}/rotation`);
    const second = await send('POST', `/subscriptions/${sub.id}/rotate-secret`);
    const third = await send('POST', `/subscriptions/${sub.id}/rotate-secret`);
    expect([second.status, third.status]).toEqual([200, 200]);
    const secrets = [sub.secret, String(second.json.secret), String(third.json.secret)];
    expect(new Set(secrets).size).toBe(3);
    const test = await send('POST', `/subscriptions/${sub.id}/test`);
    expect(test.status).toBe(200);
    const delivery = await stepUntil(
      'the test delivery',
      () => rx.requests.find((r) => r.body.includes(String(test.json.eventId))),
      dev,
    );
    const headers = {
      'webhook-id': String(delivery.headers['webhook-id']),
      'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
      'webhook-signature': String(delivery.headers['webhook-signature']),
    };
    expect(headers['webhook-signature'].split(' ')).toHaveLength(3);
    for (const secret of secrets)
      expect(() => new Webhook(secret).verify(delivery.body, headers)).not.toThrow();
  });

  it('answered no hostile input with a 5xx', () => {
    expect(tried.length).toBeGreaterThan(50);
    expect(tried.filter((t) => t.status >= 500)).toEqual([]);
  });

  it('leaves no DynamoDB Local JVM behind when node is killed with SIGKILL', async () => {
    const pid = dev.child.pid ?? 0;
    const jvms = childrenOf(pid).filter((c) => commandOf(c).includes('java'));
    expect(jvms).toHaveLength(1);
    const jvm = jvms[0] ?? 0;
    const killedAt = Date.now();
    process.kill(pid, 'SIGKILL');
    await dev.exited;
    await until('the JVM to exit', () => (alive(jvm) ? undefined : true), undefined, 10_000);
    figures.jvmGoneAfterMs = Date.now() - killedAt;
    expect(alive(jvm)).toBe(false);
  }, 30_000);
});
