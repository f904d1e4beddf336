import { afterEach, describe, expect, it } from 'vitest';
import { createSender } from '../../functions/adapters/webhooks/sender';
import { generateSecret } from '../../functions/core/webhooks/signing';
import { compileAllowList, parseAllowEntries, type ReservedPort } from '../../functions/core/webhooks/ssrf';
import { checkUrl, validateUrl } from '../../functions/core/webhooks/url-policy';
import { startReceiver } from './receiver';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function localPolicy(
  reserved: ReservedPort[] | (() => ReservedPort[]),
  entries = ['localhost', '127.0.0.0/8', '::1'],
) {
  const compiled = compileAllowList({ ...parseAllowEntries(entries), reservedPorts: reserved });
  if (!compiled.ok) throw new Error(compiled.error.message);
  return { allowInsecureLoopback: true, allowList: compiled.value };
}

describe("Carhook's own ports", () => {
  const reserved = [
    { port: 8080, what: 'HTTP API' },
    { port: 4010, what: 'simulator' },
  ];

  it.each([
    'http://127.0.0.1:8080/subscriptions',
    'http://127.9.9.9:4010/_sim/stats/reset',
    'http://[::1]:8080/',
    'http://[::ffff:127.0.0.1]:4010/',
  ])('refuses %s at subscribe time, naming what listens there', (url) => {
    const checked = validateUrl(url, localPolicy(reserved));
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.error.message).toMatch(/Carhook's own (HTTP API|simulator)/);
  });

  it('refuses a name that resolves to loopback on a reserved port, even an allowed name', async () => {
    const policy = {
      ...localPolicy(reserved),
      resolve: async () => [{ address: '127.0.0.1', family: 4 as const }],
    };
    const byName = await checkUrl('http://localhost:4010/_sim/stats/reset', policy);
    expect(byName.ok).toBe(false);
    if (!byName.ok)
      expect(byName.error.message).toMatch(
        /port 4010 on "localhost" \(127\.0\.0\.1\) is Carhook's own simulator/,
      );
    // Another loopback port is a receiver like any other.
    expect((await checkUrl('http://localhost:9000/hooks', policy)).ok).toBe(true);
  });

  it('checks again at send time: a port reserved after the subscription was stored is never reached', async () => {
    const r = await startReceiver();
    cleanups.push(r.close);
    const port = Number(new URL(r.url('/')).port);
    const ports: ReservedPort[] = [];
    const sender = createSender({ ...localPolicy(() => ports), timeoutMs: 5_000 });
    cleanups.push(sender.close);
    const input = { url: r.url('/hooks'), id: 'evt_1', body: '{}', secrets: { current: generateSecret() } };
    expect((await sender.send(input)).outcome).toBe('success');
    ports.push({ port, what: 'HTTP API' });
    const refused = await sender.send(input);
    expect(refused).toMatchObject({ outcome: 'refused' });
    expect(refused.error).toMatch(/Carhook's own HTTP API/);
    expect(r.requests).toHaveLength(1);
    // The same through a name the guarded lookup resolves.
    const byName = await sender.send({ ...input, url: `http://localhost:${port}/hooks` });
    expect(byName.outcome).toBe('refused');
    expect(r.requests).toHaveLength(1);
  });

  it('only admits what the allow-list names: without loopback in it, loopback is refused', () => {
    const lanOnly = localPolicy([], ['192.168.1.0/24']);
    expect(validateUrl('https://192.168.1.20/hooks', lanOnly).ok).toBe(true);
    expect(validateUrl('http://127.0.0.1:9000/hooks', lanOnly).ok).toBe(false);
  });
});

describe('parseAllowEntries (--allow-webhook-host, CARHOOK_WEBHOOK_ALLOW_HOSTS)', () => {
  it('sorts addresses, CIDRs and names; compileAllowList names a bad entry', () => {
    expect(parseAllowEntries([' 10.0.0.0/8 ', '::1', '[fd00::1]', 'hooks.lan', '*.internal', ''])).toEqual({
      cidrs: ['10.0.0.0/8', '::1', 'fd00::1'],
      hostnames: ['hooks.lan', '*.internal'],
    });
    const bad = compileAllowList(parseAllowEntries(['10.0.0.0/40']));
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.value).toBe('10.0.0.0/40');
    const port = compileAllowList(parseAllowEntries(['127.0.0.1:9000']));
    expect(port.ok).toBe(false);
  });
});
