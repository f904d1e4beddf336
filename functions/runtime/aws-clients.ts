/**
 * The AWS SDK v3 clients of a Lambda process: one per service, created on first use and kept for the
 * container's life (the SDK keeps its sockets, credentials and retry quota in the client), all
 * configured by adapters/aws/client-config.ts.
 *
 * Region and credentials come from the SDK's own providers (Lambda sets `AWS_REGION` and the role's
 * keys; `AWS_ENDPOINT_URL_<SERVICE>` redirects a service, as the SDK documents). On Lambda with
 * tracing on, each client is wrapped by Powertools Tracer `captureAWSv3Client`, so every call is an
 * X-Ray subsegment.
 */
import {
  AWS_CLIENT_SETTINGS,
  type AwsClientConfig,
  type AwsService,
  awsClientConfig,
} from '../adapters/aws/client-config';
import { activeTracer } from './tracing';

const clients = new Map<AwsService, unknown>();

/**
 * The process's client of `service`, created on the first call with `create(config)` (the caller
 * passes its client class, so a bundle carries only the SDK packages it uses).
 */
export function awsClient<C>(service: AwsService, create: (config: AwsClientConfig) => C): C {
  let client = clients.get(service) as C | undefined;
  if (client === undefined) {
    client = create(awsClientConfig(AWS_CLIENT_SETTINGS[service]));
    // Off Lambda (tests, the local runtime) Powertools disables tracing, and a bundle built without
    // tracing has no Tracer: then this is left out.
    const tracer = activeTracer();
    if (tracer) client = tracer.captureAWSv3Client(client);
    clients.set(service, client);
  }
  return client;
}

/** Drops the process's clients (tests that change the environment the next ones are built from). */
export function forgetAwsClients(): void {
  clients.clear();
}

/**
 * A `{ send }` standing for the process's client of a service until its first call, which creates
 * it: a function that never calls a service never builds its client.
 */
export function onFirstSend<C extends { send(command: never): Promise<unknown> }>(get: () => C): C {
  const send = (command: never) => get().send(command);
  return { send } as unknown as C; // only `send` is part of the port types (PutEventsClient, SqsClientLike…)
}
