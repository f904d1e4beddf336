/**
 * The rehearsal's own AWS identity and clients: what CloudFormation and the operator do in a real
 * account (create the resources, put secrets, read queues), signed by an administrator user that
 * the first unauthenticated requests to moto create. Every later request moto answers is checked
 * against its signer's policies, the administrator's included.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import {
  CreateAccessKeyCommand,
  CreateUserCommand,
  IAMClient,
  PutUserPolicyCommand,
} from '@aws-sdk/client-iam';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { STSClient } from '@aws-sdk/client-sts';

export interface Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export interface AdminClients {
  readonly credentials: Credentials;
  /** The administrator's IAM policy (everything), for the checks of the rehearsal's own gate. */
  readonly policy: { Version: string; Statement: { Effect: string; Action: string; Resource: string }[] };
  readonly arn: string;
  readonly iam: IAMClient;
  readonly sts: STSClient;
  /** Through the IAM gate once it runs (`routeSqsThrough`): queue URLs then name the gate's host. */
  sqs: SQSClient;
  readonly events: EventBridgeClient;
  readonly secrets: SecretsManagerClient;
  readonly scheduler: SchedulerClient;
  /** DynamoDB Local, directly (it has no IAM). */
  readonly dynamodb: DynamoDBClient;
}

/** How many requests moto answers before it enforces IAM: the three that create the administrator. */
export const ADMIN_BOOTSTRAP_REQUESTS = 3;

export function clientConfig(endpoint: string, region: string, credentials: Credentials) {
  return { endpoint, region, credentials, maxAttempts: 2 };
}

/** Creates the administrator with the first (unauthenticated) requests and returns its clients. */
export async function createAdmin(options: {
  motoEndpoint: string;
  dynamoEndpoint: string;
  region: string;
  account: string;
}): Promise<AdminClients> {
  const { motoEndpoint, region } = options;
  // Any key signs the bootstrap requests: moto does not check them yet.
  const bootstrap = new IAMClient(
    clientConfig(motoEndpoint, region, { accessKeyId: 'bootstrap', secretAccessKey: 'bootstrap' }),
  );
  await bootstrap.send(new CreateUserCommand({ UserName: 'rehearsal-admin' }));
  const policy = { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] };
  await bootstrap.send(
    new PutUserPolicyCommand({
      UserName: 'rehearsal-admin',
      PolicyName: 'administrator',
      PolicyDocument: JSON.stringify(policy),
    }),
  );
  const key = await bootstrap.send(new CreateAccessKeyCommand({ UserName: 'rehearsal-admin' }));
  bootstrap.destroy();
  const credentials: Credentials = {
    accessKeyId: key.AccessKey?.AccessKeyId ?? '',
    secretAccessKey: key.AccessKey?.SecretAccessKey ?? '',
  };
  const config = clientConfig(motoEndpoint, region, credentials);
  return {
    credentials,
    policy,
    arn: `arn:aws:iam::${options.account}:user/rehearsal-admin`,
    iam: new IAMClient(config),
    sts: new STSClient(config),
    sqs: new SQSClient(config),
    events: new EventBridgeClient(config),
    secrets: new SecretsManagerClient(config),
    scheduler: new SchedulerClient(config),
    dynamodb: new DynamoDBClient({
      ...clientConfig(options.dynamoEndpoint, region, credentials),
    }),
  };
}

/**
 * SQS answers a queue's URL with the host the request reached; the SDK then sends each call to the
 * host of the `QueueUrl` it is given. Creating the queues through the gate makes their URLs (in the
 * templates' environment) lead the functions' SQS calls through the gate too, as on AWS every
 * queue URL names the SQS endpoint.
 */
export function routeSqsThrough(admin: AdminClients, gateEndpoint: string, region: string): void {
  admin.sqs.destroy();
  admin.sqs = new SQSClient(clientConfig(gateEndpoint, region, admin.credentials));
}

export function destroyAdmin(admin: AdminClients): void {
  for (const client of [
    admin.iam,
    admin.sts,
    admin.sqs,
    admin.events,
    admin.secrets,
    admin.scheduler,
    admin.dynamodb,
  ]) {
    client.destroy();
  }
}
