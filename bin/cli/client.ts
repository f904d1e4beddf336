/**
 * The CLI's HTTP client of Carhook's API: the local runtime (bearer admin token) or a deployed
 * stack's HTTP API (IAM: SigV4-signed with the caller's AWS credentials, `execute-api`).
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { SignatureV4 } from '@smithy/signature-v4';

export interface TargetOptions {
  readonly url?: string;
  readonly token?: string;
  readonly aws?: boolean;
  readonly region?: string;
}

export type Auth = { kind: 'token'; token: string } | { kind: 'sigv4'; region: string } | { kind: 'none' };

export interface Target {
  readonly url: string;
  readonly auth: Auth;
}

export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    readonly kind: 'Usage' | 'Http' | 'Network' | 'Auth',
    message: string,
    readonly status?: number,
    readonly body?: unknown,
  ) {
    super(message);
  }
}

export const DEFAULT_URL = 'http://127.0.0.1:8080';

const isLoopback = (url: URL): boolean => ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);

/** `--url`/`CARHOOK_URL`, `--token`/`CARHOOK_ADMIN_TOKEN`; a non-local URL without a token is signed (SigV4). */
export function resolveTarget(
  options: TargetOptions,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Target {
  const raw = options.url ?? env.CARHOOK_URL ?? DEFAULT_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError('Usage', `--url: "${raw}" is not a URL (example: ${DEFAULT_URL})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError('Usage', `--url: must be http(s), got ${url.protocol}`);
  const base = url.toString().replace(/\/$/, '');
  const token = options.token ?? env.CARHOOK_ADMIN_TOKEN;
  if (options.aws || (!token && !isLoopback(url))) {
    const region =
      options.region ??
      env.AWS_REGION ??
      env.AWS_DEFAULT_REGION ??
      /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com$/.exec(url.hostname)?.[1];
    if (!region)
      throw new CliError('Usage', '--region: needed to sign requests for this URL (or set AWS_REGION)');
    return { url: base, auth: { kind: 'sigv4', region } };
  }
  return { url: base, auth: token ? { kind: 'token', token } : { kind: 'none' } };
}

async function signedHeaders(
  target: Target & { auth: { kind: 'sigv4'; region: string } },
  method: string,
  url: URL,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<Record<string, string>> {
  const signer = new SignatureV4({
    service: 'execute-api',
    region: target.auth.region,
    credentials: fromNodeProviderChain(),
    sha256: Sha256,
  });
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) {
    const prev = query[k];
    query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  const signed = await signer.sign({
    method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query,
    headers: { ...headers, host: url.host },
    ...(body !== undefined ? { body } : {}),
  });
  return signed.headers as Record<string, string>;
}

export interface ApiResponse {
  readonly status: number;
  // parsing boundary: the API's JSON, shown or picked from by the commands
  readonly body: unknown;
  /** The server's clock (its `Date` header, ms), when it sent one: compared with its own timestamps. */
  readonly serverTime?: number;
}

export async function request(
  target: Target,
  method: string,
  path: string,
  options: { query?: Record<string, string | undefined>; body?: unknown; fetch?: typeof fetch } = {},
): Promise<ApiResponse> {
  const url = new URL(`${target.url}${path}`);
  for (const [k, v] of Object.entries(options.query ?? {}))
    if (v !== undefined) url.searchParams.append(k, v);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  let headers: Record<string, string> = {
    accept: 'application/json',
    ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
  };
  if (target.auth.kind === 'token') headers.authorization = `Bearer ${target.auth.token}`;
  if (target.auth.kind === 'sigv4') {
    try {
      headers = await signedHeaders(
        target as Target & { auth: { kind: 'sigv4'; region: string } },
        method,
        url,
        headers,
        body,
      );
    } catch (error) {
      throw new CliError(
        'Auth',
        `signing the request failed (AWS credentials?): ${(error as Error).message}`,
      );
    }
  }
  let res: Response;
  try {
    res = await (options.fetch ?? fetch)(url, { method, headers, ...(body !== undefined ? { body } : {}) });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    throw new CliError(
      'Network',
      `cannot reach ${target.url}${cause ? ` (${cause})` : ''}: is \`carhook dev\` running? (or pass --url / set CARHOOK_URL)`,
    );
  }
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON: shown as text
  }
  if (res.status >= 400) {
    const e = (parsed as { error?: { message?: string; code?: string; kind?: string } } | undefined)?.error;
    const hint =
      res.status === 401 ? ' (set CARHOOK_ADMIN_TOKEN or pass --token: `carhook dev` prints it)' : '';
    throw new CliError(
      'Http',
      `${method} ${path.replace(/\?.*$/, '')} → ${res.status}: ${e?.message ?? (typeof parsed === 'string' ? parsed.slice(0, 200) : 'error')}${hint}`,
      res.status,
      parsed,
    );
  }
  const date = Date.parse(res.headers.get('date') ?? '');
  return { status: res.status, body: parsed, ...(Number.isFinite(date) ? { serverTime: date } : {}) };
}
