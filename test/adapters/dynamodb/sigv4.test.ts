import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { amzDate, signRequest } from '../../../functions/adapters/dynamodb/sigv4';

interface Case {
  readonly title: string;
  readonly region: string;
  readonly host: string;
  readonly date: Date;
  readonly body: string;
  readonly credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

const cases: Case[] = [
  {
    title: 'long-term keys, eu-west-1',
    region: 'eu-west-1',
    host: 'dynamodb.eu-west-1.amazonaws.com',
    date: new Date('2024-02-29T23:59:59.999Z'),
    body: JSON.stringify({ TableName: 't', Key: { pk: { S: 'a' } } }),
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
  },
  {
    title: 'session token, us-east-1, unicode body',
    region: 'us-east-1',
    host: 'dynamodb.us-east-1.amazonaws.com',
    date: new Date('2025-01-01T00:00:00Z'),
    body: JSON.stringify({ TableName: 't', Item: { note: { S: 'ünïcødé ✓ 🚗' } } }),
    credentials: {
      accessKeyId: 'ASIAEXAMPLE',
      secretAccessKey: 'secret/with+chars',
      sessionToken: 'IQoJb3JpZ2luX2VjEA==',
    },
  },
  {
    title: 'DynamoDB Local host with a port, empty body',
    region: 'local',
    host: '127.0.0.1:8000',
    date: new Date('2030-06-15T12:34:56Z'),
    body: '',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  },
  {
    // Same secret and day as the first case, other region: the cached signing key must not be reused.
    title: 'same secret and day, other region',
    region: 'ap-southeast-2',
    host: 'dynamodb.ap-southeast-2.amazonaws.com',
    date: new Date('2024-02-29T10:00:00Z'),
    body: '{}',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
  },
];

async function smithyHeaders(c: Case, target: string): Promise<Record<string, string>> {
  const signer = new SignatureV4({
    service: 'dynamodb',
    region: c.region,
    credentials: c.credentials,
    sha256: Sha256,
  });
  const [hostname, port] = c.host.split(':');
  const signed = await signer.sign(
    {
      method: 'POST',
      protocol: 'https:',
      hostname: hostname as string,
      ...(port ? { port: Number(port) } : {}),
      path: '/',
      query: {},
      headers: { host: c.host, 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': target },
      body: c.body,
    },
    { signingDate: c.date },
  );
  return signed.headers;
}

describe('SigV4 signing', () => {
  for (const c of cases) {
    it(`produces the same authorization header as @smithy/signature-v4 (${c.title})`, async () => {
      for (const target of ['DynamoDB_20120810.GetItem', 'DynamoDB_20120810.TransactWriteItems']) {
        const ours = signRequest({
          method: 'POST',
          path: '/',
          headers: { Host: c.host, 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': target },
          body: c.body,
          region: c.region,
          service: 'dynamodb',
          credentials: c.credentials,
          date: c.date,
        });
        const theirs = await smithyHeaders(c, target);
        expect(ours.authorization).toBe(theirs.authorization);
        expect(ours['x-amz-date']).toBe(theirs['x-amz-date']);
        expect(ours['x-amz-security-token']).toBe(theirs['x-amz-security-token']);
      }
    });
  }

  it('signs the session token header only when there is a session token', () => {
    const base = {
      method: 'POST',
      path: '/',
      headers: { host: 'h' },
      body: '{}',
      region: 'eu-west-1',
      service: 'dynamodb',
      date: new Date('2024-01-01T00:00:00Z'),
    };
    const without = signRequest({ ...base, credentials: { accessKeyId: 'a', secretAccessKey: 's' } });
    const withToken = signRequest({
      ...base,
      credentials: { accessKeyId: 'a', secretAccessKey: 's', sessionToken: 't' },
    });
    expect(without['x-amz-security-token']).toBeUndefined();
    expect(without.authorization).not.toContain('x-amz-security-token');
    expect(withToken['x-amz-security-token']).toBe('t');
    expect(withToken.authorization).toContain('x-amz-security-token');
  });

  it('formats x-amz-date in ISO 8601 basic format without milliseconds', () => {
    expect(amzDate(new Date('2024-02-29T23:59:59.999Z'))).toBe('20240229T235959Z');
  });
});
