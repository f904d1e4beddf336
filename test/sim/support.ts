import { type RunningSimulator, type SimulatorOptions, startSimulator } from '../../sim/index';

export interface TestSim {
  readonly sim: RunningSimulator;
  /** `fetch` relative to the simulator. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** A v2 GET with bearer token and `client_id` added. */
  v2(path: string, token: string, query?: Record<string, string>): Promise<Response>;
  /** Same as `v2`, with an abort signal (to give up on a hung request). */
  v2Abortable(path: string, token: string, signal: AbortSignal): Promise<Response>;
  /** Control API call with a JSON body; returns status and parsed body. */
  // biome-ignore lint/suspicious/noExplicitAny: JSON from the wire, read freely by the tests.
  control(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Tokens for a user through the control shortcut. */
  tokenFor(userId: string, clientId?: string): Promise<string>;
  close(): Promise<void>;
}

/** Starts a simulator on 127.0.0.1, port 0, manual clock (unless told otherwise). */
export async function startTestSim(options: SimulatorOptions = {}): Promise<TestSim> {
  const sim = await startSimulator({ port: 0, clock: 'manual', ...options });
  const fetchRel = (path: string, init?: RequestInit): Promise<Response> => fetch(`${sim.url}${path}`, init);
  return {
    sim,
    fetch: fetchRel,
    v2: (path, token, query = {}) => {
      const u = new URL(`${sim.url}/connectedcar/v2${path}`);
      if (!u.searchParams.has('client_id')) u.searchParams.set('client_id', sim.clientId);
      for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
      return fetch(u, { headers: { authorization: `Bearer ${token}`, accept: 'application/hal+json' } });
    },
    v2Abortable: (path, token, signal) =>
      fetch(`${sim.url}/connectedcar/v2${path}?client_id=${sim.clientId}`, {
        headers: { authorization: `Bearer ${token}` },
        signal,
      }),
    control: async (method, path, body) => {
      const res = await fetchRel(`/_sim${path}`, {
        method,
        ...(body !== undefined
          ? {
              body: typeof body === 'string' ? body : JSON.stringify(body),
              headers: { 'content-type': 'application/json' },
            }
          : {}),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
    tokenFor: async (userId, clientId) => {
      const res = await fetchRel(`/_sim/users/${userId}/tokens`, {
        method: 'POST',
        body: JSON.stringify(clientId ? { clientId } : {}),
        headers: { 'content-type': 'application/json' },
      });
      if (res.status !== 201) throw new Error(`token shortcut answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { access_token: string }).access_token;
    },
    close: () => sim.close(),
  };
}

export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/** The JSON body of a response, read freely by the tests. */
// biome-ignore lint/suspicious/noExplicitAny: JSON from the wire.
export async function json(res: Promise<Response> | Response): Promise<any> {
  return (await res).json();
}
