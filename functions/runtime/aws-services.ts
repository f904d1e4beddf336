/**
 * The four SDK clients, for the functions that call all four services (poll worker, fan-out,
 * delivery, HTTP API). A function that calls fewer lists its own (planner, sweeper), so its bundle
 * carries only those.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { AwsServices } from './aws';

export const ALL_SERVICES: AwsServices = {
  dynamodb: (c) => new DynamoDBClient(c),
  eventBridge: (c) => new EventBridgeClient(c),
  sqs: (c) => new SQSClient(c),
  secretsManager: (c) => new SecretsManagerClient(c),
};
