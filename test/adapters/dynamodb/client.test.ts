import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DynamoDb,
  DynamoDbError,
  type DynamoDbOptions,
  type JsonBody,
} from '../../../functions/adapters/dynamodb/client';
import { callError } from './support';

interface Seen {
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** What the fake DynamoDB does with the n-th request (0-based): answer, or hang / reset itself. */
type Reply = { status: number; body: string } | 'reset' | 'hang' | ((res: ServerResponse) => void);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fakeDynamo(
  reply: (n: number, seen: Seen) => Reply,
): Promise<{ endpoint: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s = {
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      const r = reply(seen.length, s);
      seen.push(s);
      if (r === 'reset') req.socket.destroy();
      else if (r === 'hang') hanging.push(res);
      else if (typeof r === 'function') r(res);
      else res.writeHead(r.status, { 'content-type': 'application/x-amz-json-1.0' }).end(r.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}`, seen };
}

const awsError = (type: string, fields: Record<string, unknown> = {}, status = 400) => ({
  status,
  body: JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, ...fields }),
});
const ok = (body: JsonBody = {}) => ({ status: 200, body: JSON.stringify(body) });

function client(endpoint: string, options: Partial<DynamoDbOptions> = {}) {
  const sleeps: number[] = [];
  const db = new DynamoDb({
    region: 'eu-west-1',
    endpoint,
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret', sessionToken: 'token' },
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    now: () => new Date('2024-01-02T03:04:05Z'),
    ...options,
  });
  cleanups.push(() => db.destroy());
  return { db, sleeps };
}

describe('DynamoDb client: protocol', () => {
  it('POSTs signed JSON to / with the operation as x-amz-target and returns the JSON body', async () => {
    const { endpoint, seen } = await fakeDynamo(() => ok({ Item: { pk: { S: 'a' } } }));
    const { db } = client(endpoint);
    const out = await db.call('GetItem', { TableName: 't', Key: { pk: { S: 'a' } } });
    expect(out).toEqual({ Item: { pk: { S: 'a' } } });
    const [req] = seen;
    expect(req?.method).toBe('POST');
    expect(req?.url).toBe('/');
    expect(JSON.parse(req?.body ?? '')).toEqual({ TableName: 't', Key: { pk: { S: 'a' } } });
    expect(req?.headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(req?.headers['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
    expect(req?.headers.host).toBe(new URL(endpoint).host);
    expect(req?.headers['x-amz-date']).toBe('20240102T030405Z');
    expect(req?.headers['x-amz-security-token']).toBe('token');
    expect(req?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDTEST\/20240102\/eu-west-1\/dynamodb\/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token;x-amz-target, Signature=[0-9a-f]{64}$/,
    );
  });

  it('returns {} for an empty 200 body', async () => {
    const { endpoint } = await fakeDynamo(() => ({ status: 200, body: '' }));
    const { db } = client(endpoint);
    expect(await db.call('DeleteTable', { TableName: 't' })).toEqual({});
  });

  it('reads the credentials from AWS_* variables at each call', async () => {
    const { endpoint, seen } = await fakeDynamo(() => ok());
    const { db } = client(endpoint, { credentials: undefined });
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDFIRST');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 's1');
    vi.stubEnv('AWS_SESSION_TOKEN', '');
    await db.call('ListTables', {});
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDSECOND');
    vi.stubEnv('AWS_SESSION_TOKEN', 'tok2');
    await db.call('ListTables', {});
    expect(seen[0]?.headers.authorization).toContain('Credential=AKIDFIRST/');
    expect(seen[0]?.headers['x-amz-security-token']).toBeUndefined();
    expect(seen[1]?.headers.authorization).toContain('Credential=AKIDSECOND/');
    expect(seen[1]?.headers['x-amz-security-token']).toBe('tok2');
  });

  it('fails with a CredentialsError naming AWS_ACCESS_KEY_ID when the variables are missing, sending nothing', async () => {
    const { endpoint, seen } = await fakeDynamo(() => ok());
    const { db } = client(endpoint, { credentials: undefined });
    vi.stubEnv('AWS_ACCESS_KEY_ID', '');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', '');
    const error = await callError(db.call('GetItem', {}));
    expect(error.name).toBe('CredentialsError');
    expect(error.message).toContain('AWS_ACCESS_KEY_ID');
    expect(error.message).toContain('AWS_SECRET_ACCESS_KEY');
    expect(seen).toHaveLength(0);
  });

  it('uses a credentials provider function', async () => {
    const { endpoint, seen } = await fakeDynamo(() => ok());
    const { db } = client(endpoint, {
      credentials: async () => ({ accessKeyId: 'AKIDFN', secretAccessKey: 'x' }),
    });
    await db.call('ListTables', {});
    expect(seen[0]?.headers.authorization).toContain('Credential=AKIDFN/');
  });

  it.each([
    ['region', { region: '' }],
    ['maxAttempts', { maxAttempts: 0 }],
    ['maxAttempts', { maxAttempts: 11 }],
    ['requestTimeoutMs', { requestTimeoutMs: -1 }],
    ['maxSockets', { maxSockets: 1.5 }],
    ['endpoint', { endpoint: 'ftp://example.com' }],
    ['endpoint', { endpoint: 'not a url' }],
  ])('rejects a bad %s with a RangeError naming it', (field, bad) => {
    expect(() => new DynamoDb({ region: 'eu-west-1', ...bad })).toThrow(RangeError);
    expect(() => new DynamoDb({ region: 'eu-west-1', ...bad })).toThrow(`DynamoDbOptions.${field}`);
  });
});

describe('DynamoDb client: errors', () => {
  it('parses ConditionalCheckFailedException with the raw Item', async () => {
    const item = { pk: { S: 'a' }, n: { N: '1' } };
    const { endpoint, seen } = await fakeDynamo(() =>
      awsError('ConditionalCheckFailedException', { message: 'The conditional request failed', Item: item }),
    );
    const { db } = client(endpoint);
    const error = await callError(db.call('PutItem', {}));
    expect(error.name).toBe('ConditionalCheckFailedException');
    expect(error.message).toBe('The conditional request failed');
    expect(error.Item).toEqual(item);
    expect(error.operation).toBe('PutItem');
    expect(error.statusCode).toBe(400);
    expect(error.retryable).toBe(false);
    expect(error.attempts).toBe(1);
    expect(seen).toHaveLength(1);
  });

  it('parses TransactionCanceledException with raw CancellationReasons and its capitalised Message', async () => {
    const reasons = [
      { Code: 'None' },
      { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed', Item: { pk: { S: 'b' } } },
    ];
    const { endpoint } = await fakeDynamo(() =>
      awsError('TransactionCanceledException', {
        Message: 'Transaction cancelled [None, ConditionalCheckFailed]',
        CancellationReasons: reasons,
      }),
    );
    const { db } = client(endpoint);
    const error = await callError(db.call('TransactWriteItems', {}));
    expect(error.name).toBe('TransactionCanceledException');
    expect(error.message).toBe('Transaction cancelled [None, ConditionalCheckFailed]');
    expect(error.CancellationReasons).toEqual(reasons);
    expect(error.Item).toBeUndefined();
  });

  it.each([
    ['ResourceNotFoundException', 'Requested resource not found'],
    ['ValidationException', 'One or more parameter values were invalid'],
  ])('parses %s and does not retry it', async (type, message) => {
    const { endpoint, seen } = await fakeDynamo(() => awsError(type, { message }));
    const { db, sleeps } = client(endpoint);
    const error = await callError(db.call('Query', {}));
    expect([error.name, error.message, error.retryable, error.attempts]).toEqual([type, message, false, 1]);
    expect(seen).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('names a non-JSON 4xx UnknownError and keeps the body text as the message', async () => {
    const { endpoint, seen } = await fakeDynamo(() => ({ status: 403, body: '<html>Forbidden</html>' }));
    const { db } = client(endpoint);
    const error = await callError(db.call('GetItem', {}));
    expect([error.name, error.statusCode, error.message, error.retryable]).toEqual([
      'UnknownError',
      403,
      '<html>Forbidden</html>',
      false,
    ]);
    expect(seen).toHaveLength(1);
  });
});

describe('DynamoDb client: retries', () => {
  it('retries throttling with 100 ms-based full-jitter backoff, then returns the success', async () => {
    const { endpoint, seen } = await fakeDynamo((n) =>
      n < 2 ? awsError('ProvisionedThroughputExceededException', { message: 'slow down' }) : ok({ Count: 1 }),
    );
    const { db, sleeps } = client(endpoint);
    expect(await db.call('Query', {})).toEqual({ Count: 1 });
    expect(seen).toHaveLength(3);
    expect(sleeps).toEqual([50, 100]); // random 0.5 × 100 × 2^0, × 2^1
  });

  it.each(['ThrottlingException', 'RequestLimitExceeded'])('retries %s', async (type) => {
    const { endpoint, seen } = await fakeDynamo((n) => (n === 0 ? awsError(type) : ok()));
    const { db } = client(endpoint);
    await db.call('PutItem', {});
    expect(seen).toHaveLength(2);
  });

  it('names a message-less AWS error by its type and status', async () => {
    const { endpoint } = await fakeDynamo(() => awsError('ThrottlingException'));
    const { db } = client(endpoint, { maxAttempts: 1 });
    const error = await callError(db.call('PutItem', {}));
    expect([error.name, error.message, error.retryable]).toEqual([
      'ThrottlingException',
      'ThrottlingException (HTTP 400)',
      true,
    ]);
  });

  it('retries a 5xx up to maxAttempts with 25 ms-based backoff, then throws with attempts = maxAttempts', async () => {
    const { endpoint, seen } = await fakeDynamo(() => ({ status: 500, body: 'oops' }));
    const { db, sleeps } = client(endpoint, { maxAttempts: 4 });
    const error = await callError(db.call('GetItem', {}));
    expect([error.name, error.statusCode, error.retryable, error.attempts]).toEqual([
      'InternalServerError',
      500,
      true,
      4,
    ]);
    expect(seen).toHaveLength(4);
    expect(sleeps).toEqual([12.5, 25, 50]);
  });

  it('caps the backoff at 20 s', async () => {
    const { endpoint } = await fakeDynamo(() => awsError('ThrottlingException'));
    const { db, sleeps } = client(endpoint, { maxAttempts: 10, random: () => 1 });
    await callError(db.call('GetItem', {}));
    expect(sleeps.at(-1)).toBe(20_000);
    expect(sleeps).toHaveLength(9);
  });

  it('gives TransactWriteItems one idempotency token for all its attempts, unless the caller set one', async () => {
    const { endpoint, seen } = await fakeDynamo((n) => (n % 2 === 0 ? { status: 500, body: '' } : ok()));
    const { db } = client(endpoint);
    await db.call('TransactWriteItems', { TransactItems: [] });
    await db.call('TransactWriteItems', { TransactItems: [], ClientRequestToken: 'mine' });
    await db.call('PutItem', {});
    const tokens = seen.map(
      (s) => (JSON.parse(s.body) as { ClientRequestToken?: string }).ClientRequestToken,
    );
    expect(tokens[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(tokens.slice(1)).toEqual([tokens[0], 'mine', 'mine', undefined, undefined]);
  });

  it('retries when the server resets the connection', async () => {
    const { endpoint, seen } = await fakeDynamo((n) => (n === 0 ? 'reset' : ok({ Items: [] })));
    const { db } = client(endpoint);
    expect(await db.call('Scan', {})).toEqual({ Items: [] });
    expect(seen).toHaveLength(2);
  });

  it('throws NetworkingError with the socket error as cause once resets exhaust the attempts', async () => {
    const { endpoint, seen } = await fakeDynamo(() => 'reset');
    const { db } = client(endpoint, { maxAttempts: 2 });
    const error = await callError(db.call('Scan', {}));
    expect([error.name, error.retryable, error.attempts]).toEqual(['NetworkingError', true, 2]);
    expect((error.cause as { code?: string }).code).toBe('ECONNRESET');
    expect(seen).toHaveLength(2);
  });

  it('retries a refused connection', async () => {
    const { endpoint } = await fakeDynamo(() => ok());
    for (const cleanup of cleanups.splice(0)) await cleanup(); // the port is now closed
    const { db, sleeps } = client(endpoint, { maxAttempts: 2 });
    const error = await callError(db.call('GetItem', {}));
    expect([error.name, error.attempts, (error.cause as { code?: string }).code]).toEqual([
      'NetworkingError',
      2,
      'ECONNREFUSED',
    ]);
    expect(sleeps).toHaveLength(1);
  });

  it('times an attempt out after requestTimeoutMs and retries it, then throws TimeoutError', async () => {
    const { endpoint, seen } = await fakeDynamo(() => 'hang');
    const { db } = client(endpoint, { requestTimeoutMs: 100, maxAttempts: 2 });
    const started = Date.now();
    const error = await callError(db.call('GetItem', {}));
    expect([error.name, error.retryable, error.attempts]).toEqual(['TimeoutError', true, 2]);
    expect(seen).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('times out a response that trickles in slower than requestTimeoutMs', async () => {
    const { endpoint } = await fakeDynamo(() => (res) => {
      res.writeHead(200);
      const timer = setInterval(() => res.write(' '), 20);
      res.on('close', () => clearInterval(timer));
    });
    const { db } = client(endpoint, { requestTimeoutMs: 150, maxAttempts: 1 });
    const error = await callError(db.call('GetItem', {}));
    expect(error.name).toBe('TimeoutError');
  });
});

describe('DynamoDb client: abort', () => {
  it('aborts the request in flight', async () => {
    const { endpoint, seen } = await fakeDynamo(() => 'hang');
    const { db } = client(endpoint);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await callError(db.call('GetItem', {}, { signal: controller.signal }));
    expect(error.name).toBe('AbortError');
    expect(seen).toHaveLength(1);
  });

  it('aborts the backoff sleep between attempts', async () => {
    const { endpoint, seen } = await fakeDynamo(() => ({ status: 500, body: '' }));
    const controller = new AbortController();
    const { db } = client(endpoint, {
      sleep: () => {
        controller.abort();
        return new Promise(() => {}); // would never wake up on its own
      },
    });
    const error = await callError(db.call('GetItem', {}, { signal: controller.signal }));
    expect([error.name, error.attempts]).toEqual(['AbortError', 1]);
    expect(seen).toHaveLength(1);
  });

  it('aborts the default sleep too', async () => {
    const { endpoint } = await fakeDynamo(() => awsError('ThrottlingException'));
    const { db } = client(endpoint, { sleep: undefined, random: () => 1, maxAttempts: 10 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 400); // by then the backoff is at 800 ms or more
    const started = Date.now();
    const error = await callError(db.call('GetItem', {}, { signal: controller.signal }));
    expect(error.name).toBe('AbortError');
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const { endpoint, seen } = await fakeDynamo(() => ok());
    const { db } = client(endpoint);
    const error = await callError(db.call('GetItem', {}, { signal: AbortSignal.abort() }));
    expect(error.name).toBe('AbortError');
    expect(seen).toHaveLength(0);
  });
});

describe('DynamoDb client: middleware', () => {
  it('runs middleware in the order added, first outermost, once per call even when the call is retried', async () => {
    const { endpoint, seen } = await fakeDynamo((n) => (n === 0 ? { status: 503, body: '' } : ok({ n })));
    const { db } = client(endpoint);
    const log: string[] = [];
    db.use(async (operation, body, next) => {
      log.push(`a ${operation} ${JSON.stringify(body)}`);
      const out = await next({ ...body, addedByA: true });
      log.push(`a after ${JSON.stringify(out)}`);
      return out;
    }).use(async (_operation, body, next) => {
      log.push(`b ${JSON.stringify(body)}`);
      const out = await next(body);
      log.push('b after');
      return { ...out, seenByB: true };
    });
    const out = await db.call('PutItem', { x: 1 });
    expect(log).toEqual([
      'a PutItem {"x":1}',
      'b {"x":1,"addedByA":true}',
      'b after',
      'a after {"n":1,"seenByB":true}',
    ]);
    expect(out).toEqual({ n: 1, seenByB: true });
    expect(seen).toHaveLength(2);
    expect(JSON.parse(seen[1]?.body ?? '')).toEqual({ x: 1, addedByA: true });
  });

  it('lets middleware inject a fault without sending anything', async () => {
    const { endpoint, seen } = await fakeDynamo(() => ok());
    const { db } = client(endpoint);
    db.use(async (operation) => {
      throw new DynamoDbError({
        name: 'ProvisionedThroughputExceededException',
        message: 'injected',
        operation,
      });
    });
    const error = await callError(db.call('UpdateItem', {}));
    expect([error.name, error.message, error.operation]).toEqual([
      'ProvisionedThroughputExceededException',
      'injected',
      'UpdateItem',
    ]);
    expect(seen).toHaveLength(0);
  });
});
