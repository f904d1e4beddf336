/**
 * The token key ring rotated as an operator would: a new key made current in Secrets Manager, the
 * old one kept, so the secret has an AWSCURRENT and an AWSPREVIOUS version.
 */
import { randomBytes } from 'node:crypto';
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';

/** Adds key `k2` (32 random bytes) as current; throws unless both version stages are then present. */
export async function rotateKeyRing(secrets: SecretsManagerClient, arn: string): Promise<void> {
  const ring = JSON.parse(
    (await secrets.send(new GetSecretValueCommand({ SecretId: arn }))).SecretString ?? '{}',
  ) as Record<string, string>;
  await secrets.send(
    new PutSecretValueCommand({
      SecretId: arn,
      SecretString: JSON.stringify({ ...ring, current: 'k2', k2: randomBytes(32).toString('base64') }),
    }),
  );
  const stages = Object.values(
    (await secrets.send(new DescribeSecretCommand({ SecretId: arn }))).VersionIdsToStages ?? {},
  ).flat();
  if (!stages.includes('AWSCURRENT') || !stages.includes('AWSPREVIOUS'))
    throw new Error(`version stages after the rotation: ${stages.join(', ')}`);
}
