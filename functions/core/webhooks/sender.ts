import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { StringDecoder } from 'node:string_decoder';
import tls from 'node:tls';
import { type SubscriptionSecrets, webhookHeaders } from './signing';
import { GuardedLookupError, guardedLookup, type Resolver, systemResolver } from './ssrf';
import { effectivePort, type UrlPolicyOptions, validateUrl } from './url-policy';

export const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_USER_AGENT = 'Carhook-Webhooks/0.1';
export const MAX_EXCERPT_BYTES = 1024;
/** Retry-After is honoured within [5 s, 24 h]: shorter would hammer a struggling endpoint, longer is clamped. */
export const RETRY_AFTER_MIN_MS = 5_000;
export const RETRY_AFTER_MAX_MS = 24 * 60 * 60 * 1000;
/** Statuses whose Retry-After is honoured (issue 6). */
export const RETRY_AFTER_STATUSES: readonly number[] = [429, 502, 503, 504];

export type AttemptOutcome = 'success' | 'failure' | 'gone' | 'timeout' | 'network' | 'refused';

/** One attempt of one delivery: what the attempt log (`GET /subscriptions/{id}/deliveries`) shows. */
export interface DeliveryAttempt {
  /** ISO 8601, the attempt's start (also its `webhook-timestamp`). */
  readonly startedAt: string;
  readonly durationMs: number;
  readonly statusCode?: number;
  readonly outcome: AttemptOutcome;
  /** The receiver's Retry-After, clamped to [RETRY_AFTER_MIN_MS, RETRY_AFTER_MAX_MS]. */
  readonly retryAfterMs?: number;
  readonly error?: string;
  /** At most MAX_EXCERPT_BYTES bytes of the response body, UTF-8. */
  readonly responseExcerpt?: string;
  /** True when the body was longer than the excerpt and the connection was cut. */
  readonly responseTruncated?: boolean;
  /** The address actually connected to (after the guarded lookup). */
  readonly remoteAddress?: string;
}

export interface SendInput {
  readonly url: string;
  /** The event id: `webhook-id`, identical on every retry. */
  readonly id: string;
  /** The exact body bytes (serializePayload), identical on every retry. */
  readonly body: string;
  readonly secrets: SubscriptionSecrets;
  /** Cut the attempt short (e.g. the Lambda is about to time out). */
  readonly signal?: AbortSignal;
}

export interface SenderOptions extends UrlPolicyOptions {
  /** Whole attempt: connect, response headers and the excerpt of the body (default 15 s). */
  readonly timeoutMs?: number;
  readonly userAgent?: string;
  /** DNS for the guarded lookup (tests inject one; default getaddrinfo). */
  readonly resolve?: Resolver;
  readonly now?: () => Date;
  /** Reuse connections per host (default true). */
  readonly keepAlive?: boolean;
  /** Extra trusted CA certificates (PEM), e.g. a local development CA; the system roots stay trusted. */
  readonly ca?: string | readonly string[];
}

export interface Sender {
  /** Never throws and never rejects: every failure is an attempt record. */
  readonly send: (input: SendInput) => Promise<DeliveryAttempt>;
  /** Closes pooled connections. */
  readonly close: () => void;
}

/**
 * Retry-After as delay seconds or an HTTP date (RFC 9110 10.2.3), clamped to [5 s, 24 h].
 * Undefined when absent or unparseable.
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at) || !/[a-z]/i.test(text)) return undefined;
    ms = at - now.getTime();
  }
  return Math.min(RETRY_AFTER_MAX_MS, Math.max(RETRY_AFTER_MIN_MS, ms));
}

function outcomeOf(status: number): AttemptOutcome {
  if (status >= 200 && status < 300) return 'success';
  if (status === 410) return 'gone';
  return 'failure';
}

function describeNetworkError(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as NodeJS.ErrnoException).code;
    return code && !e.message.includes(code) ? `${code}: ${e.message}` : e.message;
  }
  return String(e);
}

export function createSender(options: SenderOptions = {}): Sender {
  // A nonsensical timeout (0, negative, NaN) must not turn into "no timeout": use the default.
  const timeoutMs =
    options.timeoutMs !== undefined && Number.isFinite(options.timeoutMs) && options.timeoutMs > 0
      ? options.timeoutMs
      : DEFAULT_TIMEOUT_MS;
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const now = options.now ?? (() => new Date());
  const keepAlive = options.keepAlive ?? true;
  const resolver = options.resolve ?? systemResolver;
  const httpAgent = new http.Agent({ keepAlive });
  const extraCa =
    options.ca === undefined ? [] : typeof options.ca === 'string' ? [options.ca] : [...options.ca];
  const httpsAgent = new https.Agent({
    keepAlive,
    ...(extraCa.length > 0 ? { ca: [...tls.rootCertificates, ...extraCa] } : {}),
  });

  function send(input: SendInput): Promise<DeliveryAttempt> {
    const t0 = performance.now();
    const started = now();
    const base = () => ({
      startedAt: started.toISOString(),
      durationMs: Math.round((performance.now() - t0) * 100) / 100,
    });
    try {
      const validated = validateUrl(input.url, options);
      if (!validated.ok)
        return Promise.resolve({ ...base(), outcome: 'refused', error: validated.error.message });
      const url = validated.value;
      const signed = webhookHeaders({ id: input.id, body: input.body, secrets: input.secrets, now: started });
      if (!signed.ok) return Promise.resolve({ ...base(), outcome: 'refused', error: signed.error.message });
      if (input.signal?.aborted) {
        return Promise.resolve({ ...base(), outcome: 'network', error: 'aborted before sending' });
      }
      return new Promise<DeliveryAttempt>((resolve) => {
        let settled = false;
        let statusCode: number | undefined;
        let remoteAddress: string | undefined;
        const isHttps = url.protocol === 'https:';
        const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;

        const req = (isHttps ? https : http).request({
          method: 'POST',
          protocol: url.protocol,
          hostname,
          port: effectivePort(url),
          path: `${url.pathname}${url.search}`,
          agent: isHttps ? httpsAgent : httpAgent,
          // Checked with the port too: a reserved port (the runtime's own servers) is refused
          // whichever name leads to it.
          lookup: guardedLookup(resolver, options.allowList, effectivePort(url)) satisfies LookupFunction,
          headers: {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(input.body)),
            'user-agent': userAgent,
            ...signed.value,
          },
        });

        const settle = (rest: Omit<DeliveryAttempt, 'startedAt' | 'durationMs'>) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          input.signal?.removeEventListener('abort', onAbort);
          resolve({ ...base(), ...(remoteAddress ? { remoteAddress } : {}), ...rest });
        };

        const timer = setTimeout(() => {
          settle({
            outcome: 'timeout',
            ...(statusCode !== undefined ? { statusCode } : {}),
            error:
              statusCode === undefined
                ? `no response within ${timeoutMs} ms`
                : `response body not complete within ${timeoutMs} ms`,
          });
          req.destroy();
        }, timeoutMs);

        const onAbort = () => {
          settle({ outcome: 'network', error: 'aborted by the caller' });
          req.destroy();
        };
        input.signal?.addEventListener('abort', onAbort, { once: true });

        req.on('socket', (socket) => {
          // A pooled keep-alive socket is already connected: no 'connect' will come (and a listener
          // added to it on every reuse would leak).
          if (!socket.connecting) {
            remoteAddress = socket.remoteAddress;
            return;
          }
          const onConnect = () => {
            remoteAddress = socket.remoteAddress;
          };
          socket.once('connect', onConnect);
          req.once('close', () => socket.off('connect', onConnect));
        });

        req.on('error', (e) => {
          if (e instanceof GuardedLookupError && e.kind === 'AddressRefused') {
            settle({ outcome: 'refused', error: e.message });
          } else {
            settle({ outcome: 'network', error: describeNetworkError(e) });
          }
        });

        req.on('response', (res) => {
          statusCode = res.statusCode ?? 0;
          remoteAddress = res.socket?.remoteAddress ?? remoteAddress;
          const status = statusCode;
          const decoder = new StringDecoder('utf8');
          const chunks: Buffer[] = [];
          let received = 0;

          const complete = (truncated: boolean, interrupted?: string) => {
            const excerptBytes = Buffer.concat(chunks).subarray(0, MAX_EXCERPT_BYTES);
            // StringDecoder.write holds back an incomplete trailing character: the excerpt stays ≤ 1 KB.
            const excerpt = decoder.write(excerptBytes);
            const outcome = outcomeOf(status);
            const retryAfterMs = RETRY_AFTER_STATUSES.includes(status)
              ? parseRetryAfter(res.headers['retry-after'], now())
              : undefined;
            const errors: string[] = [];
            if (status >= 300 && status < 400) {
              errors.push(`redirect (${status}) to ${res.headers.location ?? '(no Location)'} not followed`);
            } else if (outcome !== 'success') {
              errors.push(`HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''}`);
            }
            if (interrupted) errors.push(interrupted);
            settle({
              statusCode: status,
              outcome,
              ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
              ...(errors.length > 0 ? { error: errors.join('; ') } : {}),
              ...(excerpt ? { responseExcerpt: excerpt } : {}),
              ...(truncated ? { responseTruncated: true } : {}),
            });
          };

          res.on('data', (chunk: Buffer) => {
            if (settled) return;
            chunks.push(chunk);
            received += chunk.length;
            if (received > MAX_EXCERPT_BYTES) {
              complete(true);
              // Never buffer a huge response: drop the connection (it is not reused).
              res.destroy();
            }
          });
          res.on('end', () => complete(false));
          res.on('aborted', () => complete(false, 'response body interrupted'));
          res.on('error', (e) => complete(false, `response body interrupted (${describeNetworkError(e)})`));
        });

        // A string body goes out in the same write as the headers (a Buffer would take a writev).
        req.end(input.body);
      });
    } catch (e) {
      // Belt and braces: a bug above must still produce an attempt record, not an exception.
      return Promise.resolve({ ...base(), outcome: 'network', error: describeNetworkError(e) });
    }
  }

  return {
    send,
    close: () => {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}
