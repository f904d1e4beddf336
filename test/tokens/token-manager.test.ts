import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTokenEndpoint, type TokenEndpoint } from '../../functions/core/api';
import { validateEvent } from '../../functions/core/events/validate';
import type { OAuthUserEnrollment } from '../../functions/core/store/records';
import { createTokenManager, refreshLeaseName } from '../../functions/core/tokens';
import { authorizeUrlFor } from '../../functions/runtime/runtime';
import { BRANDS } from '../../sim';
import type { SimUser } from '../../sim/world/types';
import { type Pipeline, startPipeline } from '../polling/support';

describe('token manager', () => {
  let p: Pipeline;
  let user: SimUser;
  let enrollmentId: string;
  let tokenRequests: number;

  /** A worker's token manager: its own endpoint (counting token requests), shared stores. */
  const manager = (workerId: string) => {
    const endpoint: TokenEndpoint = createTokenEndpoint({
      ...p.access,
      brand: BRANDS[user.brand].authSegment,
      now: p.now,
      retry: { maxAttempts: 1 },
    });
    const counted: TokenEndpoint = {
      ...endpoint,
      refresh: (token, options) => {
        tokenRequests++;
        return endpoint.refresh(token, options);
      },
    };
    return createTokenManager({
      ...p.stores,
      cipher: p.enrollDeps.cipher,
      endpointFor: () => counted,
      now: p.now,
      workerId,
      sleep: () => new Promise((r) => setImmediate(r)),
      ...(authorizeUrl ? { authorizeUrl } : {}),
    });
  };
  let authorizeUrl: ((brand: string) => string) | undefined;

  beforeEach(async () => {
    p = await startPipeline();
    user = p.sim.world.users()[0] as SimUser;
    const r = await p.enroll(user);
    if (r.kind !== 'Enrolled') throw new Error(r.kind);
    enrollmentId = r.enrollmentId;
    tokenRequests = 0;
    authorizeUrl = undefined;
  });
  afterEach(() => p.close());

  it('uses the stored token while it is fresh and refreshes before it expires', async () => {
    const provider = manager('w1').providerFor(enrollmentId);
    const first = await provider.getAccessToken();
    expect(await provider.getAccessToken()).toBe(first);
    expect(tokenRequests).toBe(0);
    const before = (await p.stores.enrollments.get(enrollmentId)) as OAuthUserEnrollment;
    // 30 s before expiry: inside the 60 s skew.
    await p.advance(3600 - 30);
    const next = await provider.getAccessToken();
    expect(next).not.toBe(first);
    expect(tokenRequests).toBe(1);
    const after = (await p.stores.enrollments.get(enrollmentId)) as OAuthUserEnrollment;
    expect(after.tokenCiphertext).not.toBe(before.tokenCiphertext);
    expect(after.tokenCiphertext).not.toContain(next);
    expect(Date.parse(after.tokenExpiresAt ?? '')).toBeGreaterThan(Date.parse(before.tokenExpiresAt ?? ''));
  });

  it('refreshes once across concurrent workers: the others read the rotated token', async () => {
    await p.advance(3600 - 30);
    const providers = ['w1', 'w2', 'w3', 'w4'].map((w) => manager(w).providerFor(enrollmentId));
    const tokens = await Promise.all(providers.map((pr) => pr.getAccessToken()));
    // The simulator rotates refresh tokens: a second refresh with the same one would be invalid_grant.
    expect(tokenRequests).toBe(1);
    expect(new Set(tokens).size).toBe(1);
    expect(providers.every((pr) => pr.outcome() === undefined)).toBe(true);
    // The lease was released.
    expect(await p.stores.leases.acquire(refreshLeaseName(enrollmentId), 'probe', 1000, p.now())).toBe(true);
  });

  it('on invalid_grant marks the enrollment once, pauses its vehicles and stops', async () => {
    await p.control('POST', `/users/${user.id}/revoke`);
    await p.advance(3600);
    const a = manager('w1').providerFor(enrollmentId);
    const b = manager('w2').providerFor(enrollmentId);
    const results = await Promise.allSettled([a.getAccessToken(), b.getAccessToken()]);
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    for (const r of results) {
      if (r.status === 'rejected') expect((r.reason as { kind: string }).kind).toBe('InvalidGrant');
    }
    expect(tokenRequests).toBe(1);
    const outcomes = [a.outcome(), b.outcome()];
    expect(outcomes.every((o) => o?.kind === 'ReauthorizationRequired')).toBe(true);
    expect(outcomes.filter((o) => o?.kind === 'ReauthorizationRequired' && o.transitioned)).toHaveLength(1);
    expect((await p.stores.enrollments.get(enrollmentId))?.status).toBe('reauthorization_required');
    const vehicles = await p.stores.vehicles.listByEnrollment(enrollmentId);
    expect(vehicles.every((v) => v.pauseReason === 'reauthorization_required')).toBe(true);
    const logged = await p.stores.events.listUnpublished({ now: p.now() });
    expect(
      logged.items.filter((s) => s.envelope.type === 'enrollment.reauthorization_required'),
    ).toHaveLength(1);
    // No further token request once stopped.
    await expect(a.getAccessToken()).rejects.toMatchObject({ kind: 'InvalidGrant' });
    expect(tokenRequests).toBe(1);
  });

  it('the reauthorization event names the paused vehicles and the authorize link to send the user to', async () => {
    authorizeUrl = authorizeUrlFor('https://carhook.example.com/api');
    await p.control('POST', `/users/${user.id}/revoke`);
    await p.advance(3600);
    const provider = manager('w1').providerFor(enrollmentId);
    await expect(provider.getAccessToken()).rejects.toMatchObject({ kind: 'InvalidGrant' });
    const vehicles = [...(await p.stores.vehicles.listByEnrollment(enrollmentId))].sort((a, b) =>
      a.id < b.id ? -1 : 1,
    );
    expect(vehicles.length).toBeGreaterThan(0);
    const logged = await p.stores.events.listUnpublished({ now: p.now() });
    const event = logged.items.find(
      (s) => s.envelope.type === 'enrollment.reauthorization_required',
    )?.envelope;
    const at = new Date(p.now()).toISOString();
    const enrollment = await p.stores.enrollments.get(enrollmentId);
    expect(event?.data).toEqual({
      enrollmentId,
      reason: 'invalid_grant',
      description: expect.any(String),
      pausedAt: at,
      vehicleIds: vehicles.map((v) => v.id),
      vins: vehicles.map((v) => v.vin),
      authorizeUrl: `https://carhook.example.com/api/oauth/${enrollment?.brand}/authorize`,
    });
    expect(validateEvent(event as never)).toEqual({ ok: true });
  });

  it('without a public URL the event has the vehicles but no link', async () => {
    await p.control('POST', `/users/${user.id}/revoke`);
    await p.advance(3600);
    await expect(manager('w1').providerFor(enrollmentId).getAccessToken()).rejects.toMatchObject({
      kind: 'InvalidGrant',
    });
    const logged = await p.stores.events.listUnpublished({ now: p.now() });
    const data = logged.items.find((s) => s.envelope.type === 'enrollment.reauthorization_required')?.envelope
      .data;
    expect(data).not.toHaveProperty('authorizeUrl');
    expect((data?.vehicleIds as string[] | undefined)?.length).toBeGreaterThan(0);
  });
});
