import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  completeAuthorization,
  signState,
  startAuthorization,
  verifyState,
} from '../../functions/core/enrollment';
import { BRANDS } from '../../sim';
import type { SimUser } from '../../sim/world/types';
import { type Pipeline, REDIRECT_URI, STATE_KEY, startPipeline } from '../polling/support';

async function nothingStored(p: Pipeline): Promise<void> {
  expect((await p.stores.enrollments.list()).items).toEqual([]);
  expect(
    (await p.stores.events.listUnpublished({ now: p.now() })).items.length +
      (
        await p.stores.events.listByTime({
          since: '2000-01-01T00:00:00.000Z',
          until: '2100-01-01T00:00:00.000Z',
          now: p.now(),
        })
      ).items.length,
  ).toBe(0);
  expect(p.bus.received).toEqual([]);
}

describe('OAuth enrollment (authorization-code flow)', () => {
  let p: Pipeline;
  let user: SimUser;

  beforeEach(async () => {
    p = await startPipeline();
    user = p.sim.world.users()[0] as SimUser;
  });
  afterEach(() => p.close());

  it('builds the brand authorize URL with a signed state and a PKCE S256 challenge', () => {
    const r = startAuthorization(p.enrollDeps, { brand: 'cielo', redirectUri: REDIRECT_URI });
    if (r.kind !== 'Started') throw new Error(r.message);
    const url = new URL(r.url);
    expect(url.pathname).toBe('/accounts/signin/v1/cielo/oauth2/authorize');
    expect(url.searchParams.get('state')).toBe(r.state);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('redirect_uri')).toBe(REDIRECT_URI);
  });

  it('names the field of a bad start request', () => {
    expect(
      startAuthorization(p.enrollDeps, { brand: 'Cielo Brand', redirectUri: REDIRECT_URI }),
    ).toMatchObject({
      kind: 'InvalidRequest',
      field: 'brand',
    });
    expect(startAuthorization(p.enrollDeps, { brand: 'cielo', redirectUri: 'not a url' })).toMatchObject({
      kind: 'InvalidRequest',
      field: 'redirectUri',
    });
    expect(() =>
      startAuthorization(
        { ...p.enrollDeps, stateKey: 'short' },
        { brand: 'cielo', redirectUri: REDIRECT_URI },
      ),
    ).toThrow(/stateKey: must be at least 32 bytes/);
  });

  it('refuses a forged state and stores nothing', async () => {
    const { code, state } = await p.authorizeInBrowser(user);
    const [body] = state.split('.');
    const forged = signState(Buffer.from('another-key-another-key-another-key!!'), {
      nonce: 'n',
      brand: BRANDS[user.brand].authSegment,
      redirectUri: REDIRECT_URI,
      expiresAt: p.now() + 60_000,
    });
    for (const bad of [forged, `${body}.AAAA`, `${body}x.${state.split('.')[1]}`, 'garbage', '']) {
      const r = await completeAuthorization(p.enrollDeps, { state: bad, code });
      expect(r.kind).toBe('InvalidState');
      if (r.kind === 'InvalidState') expect(r.message).toMatch(/^state: /);
    }
    await nothingStored(p);
  });

  it('refuses an expired state and stores nothing', async () => {
    const { code, state } = await p.authorizeInBrowser(user);
    await p.advance(11 * 60);
    const r = await completeAuthorization(p.enrollDeps, { state, code });
    expect(r).toMatchObject({ kind: 'InvalidState', reason: 'expired' });
    await nothingStored(p);
  });

  it('refuses a replayed state: the second callback stores nothing more', async () => {
    const { code, state } = await p.authorizeInBrowser(user);
    const first = await completeAuthorization(p.enrollDeps, { state, code });
    expect(first.kind).toBe('Enrolled');
    const events = p.bus.received.length;
    const enrollment =
      first.kind === 'Enrolled' ? await p.stores.enrollments.get(first.enrollmentId) : undefined;
    const again = await completeAuthorization(p.enrollDeps, { state, code });
    expect(again).toMatchObject({ kind: 'InvalidState', reason: 'replayed' });
    expect(p.bus.received.length).toBe(events);
    expect((await p.stores.enrollments.list()).items).toEqual(enrollment ? [enrollment] : []);
  });

  it('refuses a state issued for another redirect URI', async () => {
    const { code, state } = await p.authorizeInBrowser(user);
    const r = await completeAuthorization(p.enrollDeps, {
      state,
      code,
      redirectUri: 'http://127.0.0.1:9/other',
    });
    expect(r).toMatchObject({ kind: 'InvalidState', reason: 'redirect_mismatch' });
    await nothingStored(p);
  });

  it('reports a refused code without storing anything', async () => {
    const { state } = await p.authorizeInBrowser(user);
    const r = await completeAuthorization(p.enrollDeps, { state, code: 'not-a-code' });
    expect(r.kind).toBe('ExchangeFailed');
    if (r.kind === 'ExchangeFailed') expect(r.error.kind).toBe('InvalidGrant');
    await nothingStored(p);
  });

  it('verifies its own states and rejects tampering with the payload', () => {
    const key = Buffer.from(STATE_KEY);
    const state = signState(key, {
      nonce: 'abc',
      brand: 'pavo',
      redirectUri: REDIRECT_URI,
      expiresAt: 2_000,
    });
    expect(verifyState(key, state, 1_000)).toMatchObject({
      ok: true,
      payload: { nonce: 'abc', brand: 'pavo' },
    });
    const [body, sig] = state.split('.');
    const payload = JSON.parse(Buffer.from(body as string, 'base64url').toString());
    const tampered = `${Buffer.from(JSON.stringify({ ...payload, b: 'cielo' })).toString('base64url')}.${sig}`;
    expect(verifyState(key, tampered, 1_000)).toMatchObject({ ok: false, error: { reason: 'forged' } });
    expect(verifyState(key, state, 2_000)).toMatchObject({ ok: false, error: { reason: 'expired' } });
  });
});
