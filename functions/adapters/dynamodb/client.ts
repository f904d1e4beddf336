import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { setTimeout as delay } from 'node:timers/promises';
import { type SigningCredentials, signRequest } from './sigv4';

/**
 * DynamoDB's JSON protocol over keep-alive HTTP(S), SigV4-signed, with the SDK's retry rules: what
 * the data path needs without the ~930 KB of @aws-sdk/client-dynamodb in every cold start.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.LowLevelAPI.html
 */
export type DynamoOperation =
  | 'GetItem'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'Query'
  | 'Scan'
  | 'BatchWriteItem'
  | 'BatchGetItem'
  | 'TransactWriteItems'
  | 'TransactGetItems'
  | 'CreateTable'
  | 'DescribeTable'
  | 'DeleteTable'
  | 'UpdateTimeToLive'
  | 'DescribeTimeToLive'
  | 'ListTables';

/** The operations that write items (what write counters count). */
export const WRITE_OPERATIONS: ReadonlySet<DynamoOperation> = new Set<DynamoOperation>([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
]);

/** The keys a request is signed with (sigv4.ts). */
export type AwsCredentials = SigningCredentials;

export type JsonBody = Record<string, unknown>;

/** Wraps one whole call (retries included): count, inspect, inject faults. Runs in the order added, first added outermost. */
export type DynamoMiddleware = (
  operation: DynamoOperation,
  body: JsonBody,
  next: (body: JsonBody) => Promise<JsonBody>,
) => Promise<JsonBody>;

export interface DynamoDbOptions {
  readonly region: string;
  /** Default `https://dynamodb.<region>.amazonaws.com`; `http://` for DynamoDB Local. */
  readonly endpoint?: string;
  /** Default: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, read at each call (Lambda sets them). */
  readonly credentials?: AwsCredentials | (() => Promise<AwsCredentials>);
  /** Default 3 (the SDK's), 1..10. */
  readonly maxAttempts?: number;
  /** Default 10 000: one attempt, from sending to the last byte of the response. */
  readonly requestTimeoutMs?: number;
  /** Default 50 (the SDK's). */
  readonly maxSockets?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
  readonly now?: () => Date;
}

type CancellationReason = { Code?: string; Message?: string; Item?: Record<string, unknown> };

export interface DynamoDbErrorInit {
  readonly name: string;
  readonly message: string;
  readonly operation: DynamoOperation;
  readonly statusCode?: number;
  readonly retryable?: boolean;
  readonly attempts?: number;
  readonly cause?: unknown;
  readonly CancellationReasons?: CancellationReason[];
  readonly Item?: Record<string, unknown>;
}

/** `name` is AWS's short error type (`ConditionalCheckFailedException`…) or ours (`NetworkingError`, `TimeoutError`, `AbortError`, `CredentialsError`). */
export class DynamoDbError extends Error {
  readonly operation: DynamoOperation;
  readonly statusCode: number | undefined;
  readonly retryable: boolean;
  readonly attempts: number;
  /** Raw (marshalled), as AWS sends them: `unmarshall` their `Item`. */
  declare readonly CancellationReasons?: CancellationReason[];
  /** Raw: the item a failed condition saw, with `ReturnValuesOnConditionCheckFailure: ALL_OLD`. */
  declare readonly Item?: Record<string, unknown>;

  constructor(init: DynamoDbErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = init.name;
    this.operation = init.operation;
    this.statusCode = init.statusCode;
    this.retryable = init.retryable ?? false;
    this.attempts = init.attempts ?? 0;
    if (init.CancellationReasons) this.CancellationReasons = init.CancellationReasons;
    if (init.Item) this.Item = init.Item;
  }
}

// Retry rules of the SDK's standard retry strategy (@smithy/service-error-classification):
// throttling and transient server errors, plus connection failures.
const THROTTLING = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
]);
const TRANSIENT = new Set(['InternalServerError', 'ServiceUnavailable']);
const NETWORK_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ETIMEDOUT']);

class AttemptTimeout extends Error {}

interface Response {
  readonly status: number;
  readonly text: string;
}

function responseError(operation: DynamoOperation, res: Response, attempts: number): DynamoDbError {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(res.text);
    if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON (a proxy's HTML page, a truncated body): named from the status below.
  }
  // Errors are `{"__type":"com.amazonaws.dynamodb.v20120810#X","message":"..."}` (some types say `Message`).
  // https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html
  const type = typeof body.__type === 'string' ? body.__type.split('#').pop() : undefined;
  const name = type || (res.status >= 500 ? 'InternalServerError' : 'UnknownError');
  const fallback = type ? `${name} (HTTP ${res.status})` : res.text.slice(0, 200) || `HTTP ${res.status}`;
  const message = body.message ?? body.Message ?? fallback;
  return new DynamoDbError({
    name,
    message: String(message),
    operation,
    statusCode: res.status,
    retryable: res.status >= 500 || THROTTLING.has(name) || TRANSIENT.has(name),
    attempts,
    CancellationReasons: body.CancellationReasons as CancellationReason[] | undefined,
    Item: body.Item as Record<string, unknown> | undefined,
  });
}

function failureError(
  operation: DynamoOperation,
  host: string,
  cause: unknown,
  attempts: number,
): DynamoDbError {
  const message = cause instanceof Error ? cause.message : String(cause);
  if (cause instanceof AttemptTimeout) {
    return new DynamoDbError({ name: 'TimeoutError', message, operation, retryable: true, attempts, cause });
  }
  const code = (cause as { code?: unknown } | undefined)?.code;
  return new DynamoDbError({
    name: 'NetworkingError',
    message: `${operation} to ${host} failed: ${message}`,
    operation,
    retryable: NETWORK_CODES.has(String(code)) || message.includes('socket hang up'),
    attempts,
    cause,
  });
}

const abortError = (operation: DynamoOperation, signal: AbortSignal, attempts: number): DynamoDbError =>
  new DynamoDbError({
    name: 'AbortError',
    message: `${operation} aborted`,
    operation,
    attempts,
    cause: signal.reason,
  });

function checkOption(name: string, value: unknown, ok: boolean, rule: string): void {
  if (!ok) throw new RangeError(`DynamoDbOptions.${name} must be ${rule}, got ${String(value)}`);
}

const isInt = (value: number, min: number, max: number): boolean =>
  Number.isInteger(value) && value >= min && value <= max;

export class DynamoDb {
  readonly #options: DynamoDbOptions & { readonly maxAttempts: number; readonly requestTimeoutMs: number };
  readonly #url: URL;
  readonly #agent: http.Agent;
  readonly #middleware: DynamoMiddleware[] = [];

  constructor(options: DynamoDbOptions) {
    const { region, maxAttempts = 3, requestTimeoutMs = 10_000, maxSockets = 50 } = options;
    checkOption('region', region, typeof region === 'string' && region.trim() !== '', 'a region name');
    checkOption('maxAttempts', maxAttempts, isInt(maxAttempts, 1, 10), 'an integer from 1 to 10');
    checkOption(
      'requestTimeoutMs',
      requestTimeoutMs,
      isInt(requestTimeoutMs, 1, 900_000),
      'a positive integer',
    );
    checkOption('maxSockets', maxSockets, isInt(maxSockets, 1, 10_000), 'a positive integer');
    // https://docs.aws.amazon.com/general/latest/gr/ddb.html (China regions end in .com.cn)
    const suffix = region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
    const endpoint = options.endpoint ?? `https://dynamodb.${region}.${suffix}`;
    const url = URL.canParse(endpoint) ? new URL(endpoint) : undefined;
    checkOption(
      'endpoint',
      endpoint,
      url?.protocol === 'https:' || url?.protocol === 'http:',
      'an http(s) URL',
    );
    this.#url = url as URL;
    const secure = url?.protocol === 'https:';
    this.#agent = new (secure ? https : http).Agent({ keepAlive: true, maxSockets });
    this.#options = { ...options, maxAttempts, requestTimeoutMs };
  }

  use(middleware: DynamoMiddleware): this {
    this.#middleware.push(middleware);
    return this;
  }

  call(
    operation: DynamoOperation,
    body: JsonBody,
    options: { signal?: AbortSignal } = {},
  ): Promise<JsonBody> {
    let next = (input: JsonBody): Promise<JsonBody> => this.#send(operation, input, options.signal);
    for (const middleware of [...this.#middleware].reverse()) {
      const inner = next;
      next = (input) => middleware(operation, input, inner);
    }
    return next(body);
  }

  /** Closes the keep-alive sockets (tests, CLI); a Lambda keeps them for the next invocation. */
  destroy(): void {
    this.#agent.destroy();
  }

  async #send(
    operation: DynamoOperation,
    body: JsonBody,
    signal: AbortSignal | undefined,
  ): Promise<JsonBody> {
    // The SDK fills TransactWriteItems' idempotency token when absent, so that a retry after a lost
    // response is not applied twice (API_TransactWriteItems: ClientRequestToken). One token per call.
    const payload = JSON.stringify(
      operation === 'TransactWriteItems' && body.ClientRequestToken === undefined
        ? { ...body, ClientRequestToken: randomUUID() }
        : body,
    );
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw abortError(operation, signal, attempt - 1);
      const credentials = await this.#resolveCredentials(operation);
      let error: DynamoDbError;
      try {
        const res = await this.#post(operation, payload, credentials, signal);
        if (res.status === 200) return parseBody(operation, res, attempt);
        error = responseError(operation, res, attempt);
      } catch (cause) {
        if (cause instanceof DynamoDbError) throw cause;
        if (signal?.aborted) throw abortError(operation, signal, attempt);
        error = failureError(operation, this.#url.host, cause, attempt);
      }
      if (!error.retryable || attempt >= this.#options.maxAttempts) throw error;
      // Full jitter, capped at 20 s, base 100 ms when throttled and 25 ms otherwise (the SDK's values).
      // https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/
      const base = THROTTLING.has(error.name) ? 100 : 25;
      await this.#pause(
        (this.#options.random ?? Math.random)() * Math.min(20_000, base * 2 ** (attempt - 1)),
        operation,
        signal,
        attempt,
      );
    }
  }

  async #pause(
    ms: number,
    operation: DynamoOperation,
    signal: AbortSignal | undefined,
    attempts: number,
  ): Promise<void> {
    const sleep = this.#options.sleep ?? ((wait: number) => delay(wait, undefined, signal ? { signal } : {}));
    if (!signal) return sleep(ms);
    let onAbort = (): void => {};
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(abortError(operation, signal, attempts));
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      await Promise.race([sleep(ms), aborted]);
    } catch (error) {
      throw signal.aborted ? abortError(operation, signal, attempts) : error;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  async #resolveCredentials(operation: DynamoOperation): Promise<AwsCredentials> {
    const configured = this.#options.credentials;
    try {
      if (typeof configured === 'function') return await configured();
    } catch (cause) {
      throw new DynamoDbError({
        name: 'CredentialsError',
        message: 'the credentials provider failed',
        operation,
        cause,
      });
    }
    if (configured) return configured;
    const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN } = process.env;
    if (!AWS_ACCESS_KEY_ID || !AWS_SECRET_ACCESS_KEY) {
      throw new DynamoDbError({
        name: 'CredentialsError',
        message:
          'no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for ' +
          'temporary credentials; Lambda sets all three) or pass DynamoDbOptions.credentials',
        operation,
      });
    }
    return {
      accessKeyId: AWS_ACCESS_KEY_ID,
      secretAccessKey: AWS_SECRET_ACCESS_KEY,
      sessionToken: AWS_SESSION_TOKEN,
    };
  }

  #post(
    operation: DynamoOperation,
    payload: string,
    credentials: AwsCredentials,
    signal: AbortSignal | undefined,
  ): Promise<Response> {
    const url = this.#url;
    const path = url.pathname || '/';
    const headers = signRequest({
      method: 'POST',
      path,
      headers: {
        host: url.host,
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': `DynamoDB_20120810.${operation}`,
      },
      body: payload,
      region: this.#options.region,
      service: 'dynamodb',
      credentials,
      date: this.#options.now?.() ?? new Date(),
    });
    headers['content-length'] = String(Buffer.byteLength(payload));
    return new Promise<Response>((resolve, reject) => {
      const req = (url.protocol === 'https:' ? https : http).request({
        agent: this.#agent,
        method: 'POST',
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || undefined,
        path,
        headers,
      });
      // One deadline for the whole attempt: an idle-socket timeout alone would let a trickling response run on.
      const fail = (error: Error): void => {
        cleanup();
        req.destroy(error);
        reject(error);
      };
      const timer = setTimeout(
        () =>
          fail(
            new AttemptTimeout(
              `${operation}: no complete response within ${this.#options.requestTimeoutMs} ms`,
            ),
          ),
        this.#options.requestTimeoutMs,
      );
      const onAbort = (): void => fail(new Error('aborted'));
      signal?.addEventListener('abort', onAbort, { once: true });
      const cleanup = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', fail);
        res.on('end', () => {
          cleanup();
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
      });
      req.on('error', fail);
      req.end(payload);
    });
  }
}

function parseBody(operation: DynamoOperation, res: Response, attempts: number): JsonBody {
  if (res.text.trim() === '') return {};
  try {
    return JSON.parse(res.text) as JsonBody;
  } catch (cause) {
    throw new DynamoDbError({
      name: 'UnknownError',
      message: `${operation}: the 200 response is not JSON: ${res.text.slice(0, 200)}`,
      operation,
      statusCode: 200,
      attempts,
      cause,
    });
  }
}
