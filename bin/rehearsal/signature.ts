/**
 * AWS Signature Version 4 on the rehearsal's own doors (the IAM gate, the HTTP API front), through
 * the SDK's signer (`@smithy/signature-v4`): a request is verified by signing it again, with the
 * signer's secret and exactly the headers it signed, and comparing the signatures.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import type { Credentials } from './admin';

export interface SignedBy {
  readonly accessKeyId: string;
  readonly region: string;
  readonly service: string;
  readonly signedHeaders: readonly string[];
  readonly signature: string;
  readonly date: string;
}

/** The `Authorization` header's parts, or undefined when the request is not SigV4-signed. */
export function signedBy(headers: IncomingHttpHeaders): SignedBy | undefined {
  const auth = headers.authorization;
  if (!auth?.startsWith('AWS4-HMAC-SHA256 ')) return undefined;
  const part = (name: string) => new RegExp(`${name}=([^,\\s]+)`).exec(auth)?.[1];
  const [accessKeyId, date, region, service] = (part('Credential') ?? '').split('/');
  const signature = part('Signature');
  const signedHeaders = part('SignedHeaders')?.split(';');
  if (!accessKeyId || !date || !region || !service || !signature || !signedHeaders) return undefined;
  return { accessKeyId, region, service, signedHeaders, signature, date };
}

export interface RequestToSign {
  readonly method: string;
  /** Path and query as received (`/p?a=1`). */
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

function toHttpRequest(request: RequestToSign, host: string) {
  const url = new URL(request.url, `http://${host}`);
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) {
    const prev = query[k];
    query[k] = prev === undefined ? v : [...[prev].flat(), v];
  }
  return {
    method: request.method,
    protocol: 'http:',
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query,
    headers: request.headers,
    body: request.body,
  };
}

/** Whether `request` carries a valid signature by `credentials` (headers given lower-case). */
export async function verifySignature(
  request: RequestToSign,
  by: SignedBy,
  credentials: Credentials,
): Promise<boolean> {
  const amzDate = request.headers['x-amz-date'];
  if (!amzDate) return false;
  const signed = Object.fromEntries(by.signedHeaders.map((h) => [h, request.headers[h] ?? '']));
  const signer = new SignatureV4({ credentials, region: by.region, service: by.service, sha256: Sha256 });
  const again = await signer.sign(
    toHttpRequest({ ...request, headers: signed }, signed.host ?? 'localhost'),
    {
      signingDate: parseAmzDate(amzDate),
      signableHeaders: new Set(by.signedHeaders),
      unsignableHeaders: new Set(Object.keys(request.headers).filter((h) => !by.signedHeaders.includes(h))),
    },
  );
  const ours = signedBy(again.headers as IncomingHttpHeaders)?.signature ?? '';
  return ours.length === by.signature.length && timingSafeEqual(Buffer.from(ours), Buffer.from(by.signature));
}

/** The headers of `request` signed anew by `credentials` for `host` (the gate's hand-over to moto). */
export async function resign(
  request: RequestToSign,
  host: string,
  by: Pick<SignedBy, 'region' | 'service'>,
  credentials: Credentials,
): Promise<Record<string, string>> {
  const keep = ['content-type', 'x-amz-target', 'x-amz-json-1.0', 'accept', 'user-agent'];
  const headers: Record<string, string> = { host };
  for (const h of keep) if (request.headers[h] !== undefined) headers[h] = request.headers[h];
  const signer = new SignatureV4({ credentials, region: by.region, service: by.service, sha256: Sha256 });
  const signed = await signer.sign(toHttpRequest({ ...request, headers }, host));
  return signed.headers as Record<string, string>;
}

/** `20261128T120000Z` → a Date. */
function parseAmzDate(value: string): Date {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!m) return new Date(Number.NaN);
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  return new Date(Date.UTC(y ?? 0, (mo ?? 1) - 1, d, h, mi, s));
}
