/**
 * What every API area module builds on: the shared transport, plus sending a request and parsing
 * its body against a zod schema into a `Result` (a body that is not JSON or does not match is a
 * `Malformed` error with a redacted excerpt, never an exception).
 */
import * as z from 'zod';
import { excerpt, fail, type InvalidRequestError, ok, type Result } from './errors';
import type { CallOptions, HttpRequest, Transport } from './transport';
import type { V1RawResponse } from './wire/v1';

export interface ApiContext {
  readonly transport: Transport;
  /** Bound on pages one list iteration follows. */
  readonly maxPages: number;
  parse<T>(op: string, text: string, schema: z.ZodType<T>, requests: number): Result<T>;
  request<T>(req: HttpRequest, schema: z.ZodType<T>, call?: CallOptions): Promise<Result<T>>;
  /** Sends and returns the status, content type and body as sent (JSON parsed when it is JSON). */
  raw(req: HttpRequest, call?: CallOptions): Promise<Result<V1RawResponse>>;
  /** A parameter error, as the `Result` of a call that sent nothing. */
  invalid(error: InvalidRequestError): Promise<Result<never>>;
}

export function createApiContext(transport: Transport, maxPages: number): ApiContext {
  function parse<T>(op: string, text: string, schema: z.ZodType<T>, requests: number): Result<T> {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return fail(
        {
          kind: 'Malformed',
          operation: op,
          message: 'the response is not valid JSON',
          excerpt: excerpt(transport.redact(text)),
        },
        requests,
      );
    }
    const parsed = schema.safeParse(body);
    if (parsed.success) return ok(parsed.data, requests);
    // Paths hold the body's own keys (record keys, `_embedded` names): redacted like the excerpt,
    // and bounded, so neither a secret nor a megabyte key reaches a log through an issue.
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => excerpt(transport.redact(`${i.path.join('.') || '(root)'}: ${i.message}`), [], 300));
    return fail(
      {
        kind: 'Malformed',
        operation: op,
        message: `the response does not match the expected shape (${issues[0] ?? 'unknown'})`,
        excerpt: excerpt(transport.redact(text)),
        issues,
      },
      requests,
    );
  }

  async function request<T>(req: HttpRequest, schema: z.ZodType<T>, call?: CallOptions): Promise<Result<T>> {
    const r = await transport.send(req, call);
    if (!r.ok) return r;
    return parse(req.operation, r.value.text, schema, r.requests);
  }

  async function raw(req: HttpRequest, call?: CallOptions): Promise<Result<V1RawResponse>> {
    const r = await transport.send(req, call);
    if (!r.ok) return r;
    const { status, contentType, text, bytes } = r.value;
    if (/json/i.test(contentType) && text.trim() !== '') {
      const parsed = parse(req.operation, text, z.unknown(), r.requests);
      if (!parsed.ok) return parsed;
      return ok({ status, contentType, json: parsed.value }, r.requests);
    }
    return ok({ status, contentType, ...(bytes.length > 0 ? { bytes } : {}) }, r.requests);
  }

  return {
    transport,
    maxPages,
    parse,
    request,
    raw,
    invalid: (error) => Promise.resolve(fail(error, 0)),
  };
}
