import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCarClient, unwrap } from '../../functions/core/api';
import { BRANDS, type RunningSimulator, startSimulator } from '../../sim';
import { authorize } from './simulator';

describe('token endpoint client authentication against the simulator', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, vehicles: 3, seed: 5 });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('exchanges a code and refreshes with client_secret_basic (form-encoded id, RFC 6749 2.3.1)', async () => {
    const user = sim.world.users()[0];
    if (!user) throw new Error('the simulated world has no user');
    const client = createCarClient({
      baseUrl: sim.baseUrl,
      authUrl: sim.authUrl,
      clientId: sim.clientId,
      clientSecret: sim.clientSecret,
      brand: BRANDS[user.brand].authSegment,
      clientAuth: 'client_secret_basic',
    });
    const { tokens } = await authorize(user, client);
    expect(tokens.accessToken).toBeTruthy();
    const refreshed = unwrap(await client.auth.refresh(tokens.refreshToken ?? ''));
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
  });
});
