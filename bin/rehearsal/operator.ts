/**
 * The operator of the rehearsed deployment: an IAM user allowed to invoke the HTTP API (and
 * nothing else), calling the management routes with SigV4 as `awscurl` would, through the SDK's
 * signer.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { CreateAccessKeyCommand, CreateUserCommand, PutUserPolicyCommand } from '@aws-sdk/client-iam';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AdminClients, Credentials } from './admin';
import type { Principal } from './iam';
import type { Deployment, HttpApi } from './model';

export interface Operator {
  readonly principal: Principal;
  /** A signed request to the API front; `unsigned` leaves the signature out. */
  call(
    method: string,
    path: string,
    body?: unknown,
    options?: { unsigned?: boolean },
  ): Promise<{ status: number; json: unknown; text: string }>;
}

export async function createOperator(
  admin: AdminClients,
  deployment: Deployment,
  api: HttpApi,
  frontUrl: string,
): Promise<Operator> {
  const policy = {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Action: 'execute-api:Invoke',
        Resource: `arn:aws:execute-api:${deployment.region}:${deployment.account}:${api.id}/*`,
      },
    ],
  };
  await admin.iam.send(new CreateUserCommand({ UserName: 'rehearsal-operator' }));
  await admin.iam.send(
    new PutUserPolicyCommand({
      UserName: 'rehearsal-operator',
      PolicyName: 'invoke-carhook-api',
      PolicyDocument: JSON.stringify(policy),
    }),
  );
  const key = await admin.iam.send(new CreateAccessKeyCommand({ UserName: 'rehearsal-operator' }));
  const credentials: Credentials = {
    accessKeyId: key.AccessKey?.AccessKeyId ?? '',
    secretAccessKey: key.AccessKey?.SecretAccessKey ?? '',
  };
  const principal: Principal = {
    arn: `arn:aws:iam::${deployment.account}:user/rehearsal-operator`,
    label: 'operator',
    credentials,
    policies: [{ name: 'invoke-carhook-api', policy }],
  };
  const signer = new SignatureV4({
    credentials,
    region: deployment.region,
    service: 'execute-api',
    sha256: Sha256,
  });
  const base = new URL(frontUrl);
  return {
    principal,
    async call(method, path, body, options = {}) {
      const url = new URL(path, base);
      const text = body === undefined ? undefined : JSON.stringify(body);
      const headers: Record<string, string> = {
        host: url.host,
        accept: 'application/json',
        ...(text !== undefined ? { 'content-type': 'application/json' } : {}),
      };
      const query: Record<string, string> = Object.fromEntries(url.searchParams);
      const signed = options.unsigned
        ? { headers }
        : await signer.sign({
            method,
            protocol: 'http:',
            hostname: url.hostname,
            port: Number(url.port),
            path: url.pathname,
            query,
            headers,
            ...(text !== undefined ? { body: text } : {}),
          });
      const response = await fetch(url, {
        method,
        headers: signed.headers as Record<string, string>,
        ...(text !== undefined ? { body: text } : {}),
        redirect: 'manual',
      });
      const raw = await response.text();
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        json = undefined;
      }
      return { status: response.status, json, text: raw };
    },
  };
}
