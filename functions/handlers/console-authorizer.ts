/**
 * API Gateway HTTP API Lambda authorizer of the console routes (`/console-api/…`): the admin token
 * from Secrets Manager (functions/http/console-authorizer.ts). Powertools Parameters reads the secret;
 * the authorizer keeps its own cache (60 s, and one early read after a mismatch), so every read it
 * asks for goes to Secrets Manager (`forceFetch`).
 */
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  type AuthorizerEvent,
  type AuthorizerResult,
  createConsoleAuthorizer,
} from '../http/console-authorizer';
import { loadRuntimeConfig, RUNTIME_ENV, required } from '../runtime/config';
import { withPowertools } from '../runtime/lambda';
import { logger } from '../runtime/observability';

let provider: SecretsProvider | undefined;
let arn: string | undefined;
// Read and checked once, at the first invocation that gets this far (a missing or malformed ARN
// fails closed, logged below, and is checked again at the next one).
const tokenArn = (): string =>
  (arn ??= required(
    loadRuntimeConfig(process.env, ['consoleToken']).secrets.consoleTokenArn,
    RUNTIME_ENV.consoleTokenSecretArn,
  ));

const authorize = createConsoleAuthorizer({
  now: () => Date.now(),
  loadToken: async () => {
    provider ??= new SecretsProvider({ awsSdkV3Client: new SecretsManagerClient({}) });
    const value = await provider.get(tokenArn(), { forceFetch: true });
    return value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : value;
  },
});

export const handler = withPowertools<AuthorizerEvent, AuthorizerResult>(async (event) => {
  try {
    const result = await authorize(event);
    if (!result.isAuthorized) logger.info('console request refused', { routeArn: event.routeArn });
    return result;
  } catch (error) {
    // The secret could not be read: closed, and said in the log (API Gateway answers 401/403).
    logger.error('console authorizer could not read the token', { error: error as Error });
    return { isAuthorized: false };
  }
});
