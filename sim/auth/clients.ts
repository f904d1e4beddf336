/** A registered API client: an application gets a `client_id` and a `client_secret`. */
export interface SimClientConfig {
  readonly clientId: string;
  readonly clientSecret: string;
  /**
   * Registered redirect URIs, compared exactly (the redirect URI must equal a registered one). When
   * omitted, any loopback URI is accepted (127.0.0.1, localhost, [::1], any port and path).
   */
  readonly redirectUris?: readonly string[];
  /** Requests per window for this client (default: the simulator's quota). */
  readonly quota?: { readonly limit: number; readonly windowSeconds: number };
  /** Access token lifetime, seconds (default: the simulator's, 3600). */
  readonly accessTokenTtlSeconds?: number;
}

export const DEFAULT_CLIENT: SimClientConfig = {
  clientId: 'carhook-sim',
  clientSecret: 'carhook-sim-secret',
};

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

export function isLoopbackUri(uri: string): boolean {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname) && !url.hash
  );
}

export class ClientRegistry {
  private readonly clients = new Map<string, SimClientConfig>();

  constructor(configs: readonly SimClientConfig[]) {
    for (const c of configs) this.clients.set(c.clientId, c);
  }

  get(clientId: string | undefined): SimClientConfig | undefined {
    return clientId === undefined ? undefined : this.clients.get(clientId);
  }

  all(): readonly SimClientConfig[] {
    return [...this.clients.values()];
  }

  acceptsRedirect(client: SimClientConfig, uri: string): boolean {
    return client.redirectUris ? client.redirectUris.includes(uri) : isLoopbackUri(uri);
  }
}
