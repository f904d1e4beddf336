import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { createSender, type SenderOptions } from '../../functions/adapters/webhooks/sender';
import { parseRetryAfter } from '../../functions/core/webhooks/sender';
import { generateSecret } from '../../functions/core/webhooks/signing';
import { compileAllowList, type Resolver } from '../../functions/core/webhooks/ssrf';
import { checkUrl } from '../../functions/core/webhooks/url-policy';
import { loopbackAllowList, type Receiver, startReceiver } from './receiver';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function receiver(handler?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const r = await startReceiver(handler);
  cleanups.push(r.close);
  return r;
}

function sender(options: SenderOptions = {}) {
  const s = createSender({
    allowInsecureLoopback: true,
    allowList: loopbackAllowList(),
    timeoutMs: 5_000,
    ...options,
  });
  cleanups.push(s.close);
  return s;
}

const secret = generateSecret();
const body = '{"type":"vehicle.alert.raised","timestamp":"2026-11-22T10:00:00.000Z","data":{"id":"evt_1"}}';
const delivery = (url: string) => ({ url, id: 'evt_1', body, secrets: { current: secret } });

describe('sender: what the receiver gets', () => {
  it('POSTs the body with the three webhook headers, and standardwebhooks verifies it', async () => {
    const r = await receiver((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks'),
    );
    const attempt = await sender().send(delivery(r.url('/hooks?team=a')));
    expect(attempt).toMatchObject({ outcome: 'success', statusCode: 200, responseExcerpt: 'thanks' });
    expect(attempt.remoteAddress).toBe('127.0.0.1');
    const got = r.requests[0];
    expect(got?.method).toBe('POST');
    expect(got?.url).toBe('/hooks?team=a');
    expect(got?.body).toBe(body);
    expect(got?.headers['content-type']).toBe('application/json');
    expect(got?.headers['user-agent']).toBe('Carhook-Webhooks/0.1');
    expect(got?.headers['webhook-id']).toBe('evt_1');
    expect(new Webhook(secret).verify(got?.body ?? '', got?.headers as Record<string, string>)).toEqual(
      JSON.parse(body),
    );
  });

  it('sends both signatures during a rotation, each verifying with its own secret', async () => {
    const r = await receiver();
    const previous = generateSecret();
    await sender().send({
      ...delivery(r.url()),
      secrets: { current: secret, previous: { secret: previous, rotatedAt: new Date().toISOString() } },
    });
    const headers = r.requests[0]?.headers as Record<string, string>;
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(() => new Webhook(previous).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(secret).verify(body, headers)).not.toThrow();
  });

  it('keeps webhook-id and body identical on a retry, re-signing with the attempt time', async () => {
    const r = await receiver();
    let clock = new Date('2026-11-22T10:00:00.000Z');
    const s = sender({ now: () => clock });
    await s.send(delivery(r.url()));
    clock = new Date('2026-11-22T10:05:00.000Z');
    await s.send(delivery(r.url()));
    const [a, b] = r.requests;
    expect(b?.body).toBe(a?.body);
    expect(b?.headers['webhook-id']).toBe(a?.headers['webhook-id']);
    expect(Number(b?.headers['webhook-timestamp']) - Number(a?.headers['webhook-timestamp'])).toBe(300);
  });
});

describe('sender: outcomes', () => {
  it('treats a 3xx as a failure, does not follow it, and logs the Location', async () => {
    const target = await receiver();
    const r = await receiver((_req, res) => res.writeHead(302, { location: target.url('/elsewhere') }).end());
    const attempt = await sender().send(delivery(r.url()));
    expect(attempt.outcome).toBe('failure');
    expect(attempt.statusCode).toBe(302);
    expect(attempt.error).toBe(`redirect (302) to ${target.url('/elsewhere')} not followed`);
    expect(target.requests).toHaveLength(0);
  });

  it('reports 410 as gone', async () => {
    const r = await receiver((_req, res) => res.writeHead(410).end('unsubscribed'));
    expect(await sender().send(delivery(r.url()))).toMatchObject({ outcome: 'gone', statusCode: 410 });
  });

  it('reports a 500 as a failure with the response excerpt', async () => {
    const r = await receiver((_req, res) => res.writeHead(500).end('boom: database down'));
    expect(await sender().send(delivery(r.url()))).toMatchObject({
      outcome: 'failure',
      statusCode: 500,
      error: 'HTTP 500 Internal Server Error',
      responseExcerpt: 'boom: database down',
    });
  });

  it('honours Retry-After in seconds and as an HTTP date on 429/502/503/504, clamped to [5 s, 24 h]', async () => {
    const now = new Date('2026-11-22T10:00:00.000Z');
    const answers: [number, string][] = [
      [429, '120'],
      [503, new Date(now.getTime() + 600_000).toUTCString()],
      [502, '1'],
      [504, String(3 * 24 * 3600)],
      [500, '120'],
    ];
    const r = await receiver((req, res) => {
      const [status, retryAfter] = answers[Number(req.url.slice(1))] ?? [200, ''];
      res.writeHead(status, { 'retry-after': retryAfter }).end();
    });
    const s = sender({ now: () => now });
    const results = [];
    for (const i of answers.keys()) results.push(await s.send(delivery(r.url(`/${i}`))));
    expect(results.map((a) => [a.statusCode, a.retryAfterMs])).toEqual([
      [429, 120_000],
      [503, 600_000],
      [502, 5_000],
      [504, 24 * 3600 * 1000],
      [500, undefined],
    ]);
  });

  it('parses Retry-After leniently and ignores what it cannot read', () => {
    const now = new Date('2026-11-22T10:00:00.000Z');
    expect(parseRetryAfter(' 30 ', now)).toBe(30_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(5_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('times out an endpoint that never answers', async () => {
    const r = await receiver(() => {
      // never responds
    });
    const attempt = await sender({ timeoutMs: 200 }).send(delivery(r.url()));
    expect(attempt.outcome).toBe('timeout');
    expect(attempt.statusCode).toBeUndefined();
    expect(attempt.error).toBe('no response within 200 ms');
  });

  it('times out a slow body even after a 200 status line (the body counts)', async () => {
    const r = await receiver((_req, res) => {
      res.writeHead(200);
      res.write('partial…');
      // …and the rest never comes.
    });
    const attempt = await sender({ timeoutMs: 200 }).send(delivery(r.url()));
    expect(attempt).toMatchObject({ outcome: 'timeout', statusCode: 200 });
    expect(attempt.error).toBe('response body not complete within 200 ms');
  });

  it('reads at most 4 KB of a 10 MB response and then cuts the connection', async () => {
    const total = 10 * 1024 * 1024;
    let written = 0;
    let serverSawClose = false;
    let finished = false;
    const r = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.on('close', () => {
        serverSawClose = true;
      });
      const chunk = Buffer.alloc(64 * 1024, 'é');
      // One chunk per event-loop turn (and waiting for drain): the client, in this same process,
      // gets every chance to read and hang up, whatever the kernel's socket buffer sizes.
      const pump = () => {
        if (res.destroyed) return;
        if (written >= total) {
          finished = true;
          res.end();
          return;
        }
        written += chunk.length;
        if (res.write(chunk)) setImmediate(pump);
        else res.once('drain', pump);
      };
      pump();
    });
    const attempt = await sender().send(delivery(r.url()));
    expect(attempt.outcome).toBe('success');
    expect(attempt.responseTruncated).toBe(true);
    expect(Buffer.byteLength(attempt.responseExcerpt ?? '')).toBeLessThanOrEqual(4096);
    expect(Buffer.byteLength(attempt.responseExcerpt ?? '')).toBeGreaterThan(4090);
    expect(attempt.responseExcerpt).not.toContain('\uFFFD');
    await expect.poll(() => serverSawClose).toBe(true);
    // The client hung up after the excerpt: the server never got to send the 10 MB.
    expect(finished).toBe(false);
    expect(written).toBeLessThan(total);
  });

  it('reports a closed port as a network failure', async () => {
    const r = await receiver();
    const url = r.url();
    await r.close();
    const attempt = await sender().send(delivery(url));
    expect(attempt.outcome).toBe('network');
    expect(attempt.error).toMatch(/ECONNREFUSED/);
  });

  it('never throws: a garbage URL, a bad secret and a caller abort are attempt records', async () => {
    const s = sender();
    expect(await s.send({ ...delivery('not a url'), id: 'x' })).toMatchObject({ outcome: 'refused' });
    const r = await receiver();
    expect(await s.send({ ...delivery(r.url()), secrets: { current: 'whsec_short' } })).toMatchObject({
      outcome: 'refused',
      error: expect.stringMatching(/^secret: /),
    });
    const hung = await receiver(() => {});
    const controller = new AbortController();
    const pending = s.send({ ...delivery(hung.url()), signal: controller.signal });
    await expect.poll(() => hung.requests.length).toBe(1);
    controller.abort();
    expect(await pending).toMatchObject({ outcome: 'network', error: 'aborted by the caller' });
    expect(r.requests).toHaveLength(0);
  });
});

describe('sender: SSRF at delivery time', () => {
  it('refuses a loopback receiver that is not allow-listed, without connecting', async () => {
    const r = await receiver();
    const s = createSender({ allowInsecureLoopback: true });
    cleanups.push(s.close);
    const attempt = await s.send(delivery(r.url()));
    expect(attempt.outcome).toBe('refused');
    expect(attempt.error).toMatch(/127\.0\.0\.1 is loopback/);
    expect(r.requests).toHaveLength(0);
  });

  it.each([
    ['https://2130706433/'],
    ['https://0x7f.1/'],
    ['https://[::ffff:127.0.0.1]/'],
    ['https://169.254.169.254/latest/meta-data/'],
    ['https://10.0.0.1/'],
  ])('refuses %s', async (url) => {
    const s = createSender({ resolve: async () => [] });
    cleanups.push(s.close);
    expect((await s.send(delivery(url))).outcome).toBe('refused');
  });

  it.each([
    ['127.0.0.1', /127\.0\.0\.1, which is loopback/],
    ['10.1.2.3', /10\.1\.2\.3, which is private/],
    ['169.254.169.254', /169\.254\.169\.254, which is a cloud metadata/],
    ['::1', /::1, which is loopback/],
  ])('refuses a name resolving to %s', async (address, message) => {
    const resolve: Resolver = async () => [{ address, family: address.includes(':') ? 6 : 4 }];
    const s = createSender({ resolve });
    cleanups.push(s.close);
    const attempt = await s.send(delivery('https://hooks.attacker.test/x'));
    expect(attempt.outcome).toBe('refused');
    expect(attempt.error).toMatch(message);
  });

  it('defeats DNS rebinding: public at subscribe time, loopback at delivery time, never connected', async () => {
    const r = await receiver();
    const answers = ['93.184.216.34', '127.0.0.1'];
    let asked = 0;
    const resolve: Resolver = async () => [
      { address: answers[Math.min(asked++, 1)] ?? '127.0.0.1', family: 4 },
    ];
    const url = `https://rebind.attacker.test:${r.port}/hooks`;
    const checked = await checkUrl(url, { resolve });
    expect(checked.ok).toBe(true);
    const s = createSender({ resolve });
    cleanups.push(s.close);
    const attempt = await s.send(delivery(url));
    expect(attempt.outcome).toBe('refused');
    expect(attempt.error).toMatch(/"rebind\.attacker\.test" resolves to 127\.0\.0\.1, which is loopback/);
    expect(r.requests).toHaveLength(0);
  });

  it('connects to exactly the address it checked (one resolution per connection)', async () => {
    const r = await receiver();
    const asked: string[] = [];
    const resolve: Resolver = async (hostname) => {
      asked.push(hostname);
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const s = sender({ resolve, keepAlive: false });
    const attempt = await s.send(delivery(`http://hooks.localhost:${r.port}/pinned`));
    expect(attempt).toMatchObject({ outcome: 'success', remoteAddress: '127.0.0.1' });
    expect(asked).toEqual(['hooks.localhost']);
    expect(r.requests[0]?.headers.host).toBe(`hooks.localhost:${r.port}`);
  });

  it('resolves with the system resolver by default (localhost, allow-listed loopback)', async () => {
    const r = await receiver();
    const list = compileAllowList({ cidrs: ['127.0.0.1/32', '::1/128'] });
    if (!list.ok) throw new Error(list.error.message);
    const attempt = await sender({ allowList: list.value }).send(delivery(`http://localhost:${r.port}/`));
    expect(attempt).toMatchObject({ outcome: 'success', remoteAddress: '127.0.0.1' });
  });

  it('refuses at delivery when one of several addresses is private', async () => {
    const resolve: Resolver = async () => [
      { address: '127.0.0.1', family: 4 },
      { address: '10.0.0.1', family: 4 },
    ];
    const s = sender({ resolve });
    const r = await receiver();
    const attempt = await s.send(delivery(`http://hooks.localhost:${r.port}/`));
    expect(attempt.outcome).toBe('refused');
    expect(r.requests).toHaveLength(0);
  });

  it('an allow-listed hostname is delivered to whatever it resolves to', async () => {
    const r = await receiver();
    const list = compileAllowList({ hostnames: ['hooks.localhost'] });
    if (!list.ok) throw new Error(list.error.message);
    const s = sender({ allowList: list.value, resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    expect((await s.send(delivery(`http://hooks.localhost:${r.port}/`))).outcome).toBe('success');
  });
});

describe('sender: https', () => {
  // Self-signed certificate for hooks.localhost and 127.0.0.1, valid until 2036 (fixtures/).
  const cert = readFileSync(new URL('./fixtures/localhost-cert.pem', import.meta.url), 'utf8');
  const key = readFileSync(new URL('./fixtures/localhost-key.pem', import.meta.url), 'utf8');

  async function httpsReceiver() {
    const bodies: string[] = [];
    const server = https.createServer({ cert, key }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    return { port: (server.address() as AddressInfo).port, bodies };
  }

  it('delivers over TLS to a name resolved by the guarded lookup, verifying the certificate for that name', async () => {
    const r = await httpsReceiver();
    const s = sender({ ca: cert, resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    const attempt = await s.send(delivery(`https://hooks.localhost:${r.port}/tls`));
    expect(attempt).toMatchObject({ outcome: 'success', statusCode: 200, remoteAddress: '127.0.0.1' });
    expect(r.bodies).toEqual([body]);
  });

  it('fails on a certificate it does not trust', async () => {
    const r = await httpsReceiver();
    const s = sender({ resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    const attempt = await s.send(delivery(`https://hooks.localhost:${r.port}/tls`));
    expect(attempt.outcome).toBe('network');
    expect(attempt.errorClass).toBe('tls');
    expect(attempt.error).toMatch(/certificate/i);
    expect(r.bodies).toHaveLength(0);
  });
});

describe('sender: what each attempt records, and why it failed in one word', () => {
  it('keeps the request headers sent (the signature, never the secret) and the answer: status, headers, body', async () => {
    const r = await receiver((_req, res) =>
      res.writeHead(503, { 'retry-after': '30', 'x-trace': 'abc' }).end('{"error":"busy"}'),
    );
    const attempt = await sender().send(delivery(r.url()));
    expect(attempt).toMatchObject({
      outcome: 'failure',
      errorClass: 'http',
      statusCode: 503,
      responseExcerpt: '{"error":"busy"}',
      responseHeaders: { 'retry-after': '30', 'x-trace': 'abc' },
    });
    expect(Object.keys(attempt.requestHeaders ?? {}).sort()).toEqual([
      'content-length',
      'content-type',
      'user-agent',
      'webhook-id',
      'webhook-signature',
      'webhook-timestamp',
    ]);
    expect(attempt.requestHeaders?.['webhook-signature']).toBe(r.requests[0]?.headers['webhook-signature']);
    expect(JSON.stringify(attempt)).not.toContain(secret.slice('whsec_'.length));
  });

  it('a success has no error class; a redirect is `redirect`', async () => {
    const ok = await receiver((_req, res) => res.writeHead(204).end());
    expect((await sender().send(delivery(ok.url()))).errorClass).toBeUndefined();
    const moved = await receiver((_req, res) => res.writeHead(301, { location: 'https://x.example/' }).end());
    expect(await sender().send(delivery(moved.url()))).toMatchObject({
      errorClass: 'redirect',
      statusCode: 301,
    });
  });

  it('names dns, refused, timeout and ssrf', async () => {
    const unresolvable = sender({
      resolve: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example'), { code: 'ENOTFOUND' });
      },
    });
    expect(await unresolvable.send(delivery('https://nowhere.example/hook'))).toMatchObject({
      outcome: 'network',
      errorClass: 'dns',
    });
    const closed = await receiver();
    const url = closed.url();
    await closed.close();
    expect(await sender().send(delivery(url))).toMatchObject({ outcome: 'network', errorClass: 'refused' });
    const hung = await receiver(() => {});
    expect(await sender({ timeoutMs: 200 }).send(delivery(hung.url()))).toMatchObject({
      outcome: 'timeout',
      errorClass: 'timeout',
    });
    const strict = sender({ allowList: undefined, allowInsecureLoopback: false });
    expect(await strict.send(delivery('https://127.0.0.1:9/hook'))).toMatchObject({
      outcome: 'refused',
      errorClass: 'ssrf',
    });
    const rebound = sender({
      allowList: undefined,
      resolve: async () => [{ address: '10.0.0.7', family: 4 }],
    });
    expect(await rebound.send(delivery('https://internal.example/hook'))).toMatchObject({
      outcome: 'refused',
      errorClass: 'ssrf',
    });
  });
});
