/**
 * The webhook sender over node's HTTP stack: one POST per attempt with the signed headers, a
 * timeout for the whole attempt, at most MAX_EXCERPT_BYTES of the response kept, redirects never
 * followed, and the socket connected only to addresses the SSRF policy checked (the guarded lookup,
 * with the port). Every failure is an attempt record; it never throws.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { StringDecoder } from 'node:string_decoder';
import tls from 'node:tls';
import {
  DEFAULT_TIMEOUT_MS,
  DEFAULT_USER_AGENT,
  type DeliveryAttempt,
  type ErrorClass,
  keptHeaders,
  MAX_EXCERPT_BYTES,
  outcomeOf,
  parseRetryAfter,
  RETRY_AFTER_STATUSES,
  type Sender,
  type SendInput,
} from '../../core/webhooks/sender';
import { webhookHeaders } from '../../core/webhooks/signing';
import { GuardedLookupError, type Resolver } from '../../core/webhooks/ssrf';
import { effectivePort, type UrlPolicyOptions, validateUrl } from '../../core/webhooks/url-policy';
import { guardedLookup, systemResolver } from './dns';

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

const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'EPROTO',
]);

/** The class of a socket error, from node's error code. */
export function classifyNetworkError(e: unknown): ErrorClass {
  if (e instanceof GuardedLookupError) return e.kind === 'AddressRefused' ? 'ssrf' : 'dns';
  const code = (e as NodeJS.ErrnoException | undefined)?.code ?? '';
  if (['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA'].includes(code)) return 'dns';
  if (code === 'ECONNREFUSED') return 'refused';
  if (['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE'].includes(code)) return 'reset';
  if (code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT') return 'timeout';
  if (TLS_CODES.has(code) || code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS')) return 'tls';
  return 'other';
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
        return Promise.resolve({
          ...base(),
          outcome: 'refused',
          errorClass: 'ssrf',
          error: validated.error.message,
        });
      const url = validated.value;
      const signed = webhookHeaders({ id: input.id, body: input.body, secrets: input.secrets, now: started });
      if (!signed.ok)
        return Promise.resolve({
          ...base(),
          outcome: 'refused',
          errorClass: 'invalid',
          error: signed.error.message,
        });
      if (input.signal?.aborted) {
        return Promise.resolve({
          ...base(),
          outcome: 'network',
          errorClass: 'other',
          error: 'aborted before sending',
        });
      }
      const requestHeaders: Record<string, string> = {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(input.body)),
        'user-agent': userAgent,
        ...signed.value,
      };
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
          headers: requestHeaders,
        });

        const settle = (rest: Omit<DeliveryAttempt, 'startedAt' | 'durationMs'>) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          input.signal?.removeEventListener('abort', onAbort);
          resolve({ ...base(), requestHeaders, ...(remoteAddress ? { remoteAddress } : {}), ...rest });
        };

        const timer = setTimeout(() => {
          settle({
            outcome: 'timeout',
            errorClass: 'timeout',
            ...(statusCode !== undefined ? { statusCode } : {}),
            error:
              statusCode === undefined
                ? `no response within ${timeoutMs} ms`
                : `response body not complete within ${timeoutMs} ms`,
          });
          req.destroy();
        }, timeoutMs);

        const onAbort = () => {
          settle({ outcome: 'network', errorClass: 'other', error: 'aborted by the caller' });
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
          const errorClass = classifyNetworkError(e);
          if (errorClass === 'ssrf') {
            settle({ outcome: 'refused', errorClass, error: e.message });
          } else {
            settle({
              outcome: errorClass === 'timeout' ? 'timeout' : 'network',
              errorClass,
              error: describeNetworkError(e),
            });
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
            // StringDecoder.write holds back an incomplete trailing character: the excerpt stays ≤ 4 KB.
            const excerpt = decoder.write(excerptBytes);
            const outcome = outcomeOf(status);
            const retryAfterMs = RETRY_AFTER_STATUSES.includes(status)
              ? parseRetryAfter(res.headers['retry-after'], now())
              : undefined;
            const errors: string[] = [];
            const redirect = status >= 300 && status < 400;
            if (redirect) {
              errors.push(`redirect (${status}) to ${res.headers.location ?? '(no Location)'} not followed`);
            } else if (outcome !== 'success') {
              errors.push(`HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''}`);
            }
            if (interrupted) errors.push(interrupted);
            settle({
              statusCode: status,
              outcome,
              responseHeaders: keptHeaders(res.headers),
              ...(outcome === 'success' ? {} : { errorClass: redirect ? 'redirect' : 'http' }),
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
      return Promise.resolve({
        ...base(),
        outcome: 'network',
        errorClass: classifyNetworkError(e),
        error: describeNetworkError(e),
      });
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
