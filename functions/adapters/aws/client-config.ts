/**
 * How Carhook's AWS SDK v3 clients are configured, in one place: retry mode and attempts, and the
 * timeouts through the SDK's NodeHttpHandler. The SDK does the protocol, signing, credential chain
 * and retries; this module only chooses their settings. Used by the Lambda clients
 * (runtime/aws-clients.ts) and the DynamoDB Local client (local/dynamodb-local.ts) alike.
 */
import { NodeHttpHandler } from '@smithy/node-http-handler';

export type AwsService = 'dynamodb' | 'eventBridge' | 'sqs' | 'secretsManager';

export interface AwsClientSettings {
  /** `standard`: the SDK's exponential backoff with a retry quota; `adaptive` adds client-side rate limiting after throttling. */
  readonly retryMode: 'standard' | 'adaptive';
  /** Attempts per call, first one included. */
  readonly maxAttempts: number;
  /** TCP (and TLS) connect, per attempt. */
  readonly connectionTimeoutMs: number;
  /** Socket idle time while waiting for the response, per attempt. */
  readonly requestTimeoutMs: number;
}

export const AWS_CLIENT_SETTINGS: Readonly<Record<AwsService, AwsClientSettings>> = {
  // Adaptive: the rate-budget item and the queue/due partitions are hot keys every worker writes at
  // once, so throttling is expected there; adaptive mode slows this client down instead of retrying into it.
  dynamodb: { retryMode: 'adaptive', maxAttempts: 4, connectionTimeoutMs: 1_000, requestTimeoutMs: 5_000 },
  eventBridge: { retryMode: 'standard', maxAttempts: 3, connectionTimeoutMs: 1_000, requestTimeoutMs: 5_000 },
  sqs: { retryMode: 'standard', maxAttempts: 3, connectionTimeoutMs: 1_000, requestTimeoutMs: 5_000 },
  secretsManager: {
    retryMode: 'standard',
    maxAttempts: 3,
    connectionTimeoutMs: 1_000,
    requestTimeoutMs: 5_000,
  },
};

/** What every SDK v3 client constructor accepts of ours. */
export interface AwsClientConfig {
  readonly retryMode: 'standard' | 'adaptive';
  readonly maxAttempts: number;
  readonly requestHandler: NodeHttpHandler;
}

/** The constructor config for `settings`: retries and, through the SDK's NodeHttpHandler, the timeouts. */
export function awsClientConfig(settings: AwsClientSettings): AwsClientConfig {
  return {
    retryMode: settings.retryMode,
    maxAttempts: settings.maxAttempts,
    requestHandler: new NodeHttpHandler({
      connectionTimeout: settings.connectionTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
    }),
  };
}
