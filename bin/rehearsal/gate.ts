/**
 * The IAM gate: the one AWS endpoint the functions see (`AWS_ENDPOINT_URL`). For each request it
 * finds the signer (a function's role session, or the operator), verifies the signature, asks the
 * policy evaluator (./iam.ts) about every action the request needs (./authorization.ts), records
 * the answer, and then either refuses it as AWS would (`AccessDeniedException`) or hands it on:
 *
 * - DynamoDB → DynamoDB Local, unchanged (it has no IAM of its own);
 * - SQS → moto, unchanged: moto checks the signature and the role's policies once more;
 * - EventBridge, Secrets Manager, and SQS's batch operations → moto, signed anew by the rehearsal's
 *   administrator: moto evaluates EventBridge and Secrets Manager statements against the resource
 *   `*` (a least-privilege grant never matches), and a batch operation as an action of its own name
 *   (`sqs:SendMessageBatch`), where IAM authorizes it as the single action (`sqs:SendMessage`).
 */
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Credentials } from './admin';
import { type AuthorizationCheck, authorizationChecks, SQS_BATCH } from './authorization';
import type { PolicyEvaluator, Principal, Principals } from './iam';
import type { Deployment } from './model';
import { resign, signedBy, verifySignature } from './signature';

export interface GateCall {
  readonly principal: string;
  readonly operation: string;
  readonly checks: readonly (AuthorizationCheck & { allowed: boolean; reason: string })[];
}

export interface Denial {
  readonly principal: string;
  readonly action: string;
  readonly resource: string;
  readonly reason: string;
}

export interface Gate {
  readonly endpoint: string;
  /** Every authorized call, by principal label. */
  readonly calls: GateCall[];
  readonly denials: Denial[];
  close(): Promise<void>;
}

export interface GateOptions {
  readonly deployment: Deployment;
  readonly principals: Principals;
  readonly evaluator: PolicyEvaluator;
  readonly motoEndpoint: string;
  readonly dynamoEndpoint: string;
  readonly admin: Credentials;
  readonly onDenial?: (denial: Denial) => void;
}

const RESIGNED = new Set(['events', 'secretsmanager']);
const resigned = (service: string, operation: string) =>
  RESIGNED.has(service) || (service === 'sqs' && operation in SQS_BATCH);

export async function startGate(options: GateOptions): Promise<Gate> {
  const calls: GateCall[] = [];
  const denials: Denial[] = [];
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) reply(res, 500, 'InternalFailure', `rehearsal gate: ${String(error)}`);
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const headers = lowerCaseHeaders(req);
    const by = signedBy(req.headers);
    if (!by) return reply(res, 403, 'MissingAuthenticationTokenException', 'Request is not signed (SigV4)');
    const principal = options.principals.byAccessKey(by.accessKeyId);
    if (!principal)
      return reply(
        res,
        403,
        'UnrecognizedClientException',
        'The security token included in the request is invalid.',
      );
    const toSign = { method: req.method ?? 'POST', url: req.url ?? '/', headers, body };
    if (!(await verifySignature(toSign, by, principal.credentials))) {
      return reply(
        res,
        403,
        'InvalidSignatureException',
        'The request signature we calculated does not match the signature you provided.',
      );
    }
    const operation = (headers['x-amz-target'] ?? '').split('.').at(-1) ?? '';
    const checks = await decide(principal, by.service, operation, body);
    calls.push({ principal: principal.label, operation: `${by.service}:${operation}`, checks });
    const denied = checks.find((c) => !c.allowed);
    if (denied) {
      const denial = {
        principal: principal.label,
        action: denied.action,
        resource: denied.resource,
        reason: denied.reason,
      };
      denials.push(denial);
      options.onDenial?.(denial);
      return reply(
        res,
        400,
        'AccessDeniedException',
        `User: ${principal.arn} is not authorized to perform: ${denied.action} on resource: ${denied.resource} (${denied.reason})`,
      );
    }
    const target = new URL(by.service === 'dynamodb' ? options.dynamoEndpoint : options.motoEndpoint);
    const forwardHeaders = resigned(by.service, operation)
      ? await resign(toSign, target.host, by, options.admin)
      : headers;
    await forward(target, req.method ?? 'POST', req.url ?? '/', forwardHeaders, body, res);
  }

  async function decide(principal: Principal, service: string, operation: string, body: string) {
    let parsed: Record<string, unknown> = {};
    try {
      parsed = body ? (JSON.parse(body) as Record<string, unknown>) : {};
    } catch {
      // Not JSON: the service will answer it as malformed; nothing to authorize beyond the operation.
    }
    let checks: AuthorizationCheck[];
    try {
      checks = authorizationChecks(service, operation, parsed, options.deployment);
    } catch (error) {
      return [
        {
          action: `${service}:${operation}`,
          resource: '*',
          context: {},
          allowed: false,
          reason: String(error),
        },
      ];
    }
    return Promise.all(
      checks.map(async (c) => ({ ...c, ...(await options.evaluator.decide(principal, c)) })),
    );
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    denials,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function lowerCaseHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (v !== undefined) out[k.toLowerCase()] = [v].flat().join(',');
  return out;
}

/** An AWS JSON-protocol error, as the SDK parses it (`__type` names the error). */
function reply(res: ServerResponse, status: number, type: string, message: string): void {
  const body = JSON.stringify({ __type: type, message, Message: message });
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-errortype': type });
  res.end(body);
}

function forward(
  target: URL,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string,
  res: ServerResponse,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const out = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method,
        path,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (upstream) => {
        res.writeHead(upstream.statusCode ?? 502, upstream.headers);
        upstream.pipe(res);
        upstream.on('end', resolve);
        upstream.on('error', reject);
      },
    );
    out.on('error', reject);
    out.end(body);
  });
}
