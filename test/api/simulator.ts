/** Helpers for the contract tests: a simulator, a user token through the real OAuth flow, a client. */
import {
  type CarClient,
  type CarClientOptions,
  createCarClient,
  createOAuthTokenProvider,
  type InMemoryTokenProvider,
  pkce,
  unwrap,
} from '../../functions/core/api';
import { BRANDS, type RunningSimulator } from '../../sim';
import type { SimUser } from '../../sim/world/types';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/**
 * Walks the OAuth authorization-code flow against the simulator: GET the authorize page (HTML listing users), POST the
 * chosen user with the original query, read the code from the 302, exchange it (with PKCE).
 */
export async function authorize(user: SimUser, client: CarClient) {
  const verifier = pkce.verifier();
  const state = pkce.state();
  const url = client.auth.authorizeUrl({
    redirectUri: REDIRECT_URI,
    state,
    codeChallenge: await pkce.challenge(verifier),
  });
  const page = await fetch(url);
  const html = await page.text();
  if (page.status !== 200 || !html.includes(user.id)) {
    throw new Error(`authorize page: status ${page.status}, user ${user.id} not listed`);
  }
  const post = await fetch(url, {
    method: 'POST',
    body: new URLSearchParams({ user: user.id }),
    redirect: 'manual',
  });
  const location = new URL(post.headers.get('location') ?? '', REDIRECT_URI);
  if (post.status !== 302 || location.searchParams.get('state') !== state) {
    throw new Error(`authorize POST: status ${post.status}, location ${location.pathname}`);
  }
  const code = location.searchParams.get('code') ?? '';
  const exchanged = await client.auth.exchangeCode({
    code,
    redirectUri: REDIRECT_URI,
    codeVerifier: verifier,
  });
  return { tokens: unwrap(exchanged), code };
}

/** A client of `user`'s brand with a token provider holding the user's tokens. */
export async function userClient(
  sim: RunningSimulator,
  user: SimUser,
  options: Partial<CarClientOptions> = {},
): Promise<{ client: CarClient; provider: InMemoryTokenProvider; code: string }> {
  const base = {
    baseUrl: sim.baseUrl,
    authUrl: sim.authUrl,
    clientId: sim.clientId,
    clientSecret: sim.clientSecret,
    brand: BRANDS[user.brand].authSegment,
  };
  const bootstrap = createCarClient(base);
  const { tokens, code } = await authorize(user, bootstrap);
  const provider = createOAuthTokenProvider({ endpoint: bootstrap.auth, tokens });
  return { client: createCarClient({ ...base, tokenProvider: provider, ...options }), provider, code };
}

export async function simStats(sim: RunningSimulator): Promise<{ byOperation: Record<string, number> }> {
  return (await (await fetch(`${sim.url}/_sim/stats`)).json()) as { byOperation: Record<string, number> };
}

export async function setChaos(sim: RunningSimulator, rates: Record<string, number>): Promise<void> {
  const res = await fetch(`${sim.url}/_sim/chaos`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(rates),
  });
  if (res.status !== 200) throw new Error(`PUT /_sim/chaos: ${res.status} ${await res.text()}`);
}
