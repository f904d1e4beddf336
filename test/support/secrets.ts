import {
  type GetSecretValueCommand,
  type GetSecretValueCommandOutput,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';

/**
 * A real `SecretsManagerClient` (Powertools Parameters accepts only an SDK v3 client) whose `send`
 * answers from `values` by secret id instead of calling AWS; an `Error` value is thrown. Every call
 * is recorded in `calls`.
 */
export function stubbedSecretsManager(values: Record<string, string | Error>): {
  readonly client: SecretsManagerClient;
  readonly calls: string[];
  readonly values: Record<string, string | Error>;
} {
  const calls: string[] = [];
  const client = new SecretsManagerClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const send = async (command: GetSecretValueCommand): Promise<GetSecretValueCommandOutput> => {
    const id = String(command.input.SecretId);
    calls.push(id);
    const v = values[id];
    if (v instanceof Error) throw v;
    if (v === undefined) throw new ResourceNotFoundException({ message: 'not found', $metadata: {} });
    return { SecretString: v, $metadata: {} };
  };
  Object.assign(client, { send });
  return { client, calls, values };
}
