/**
 * What an EventBridge consumer of Carhook sees: an SQS queue behind a rule on Carhook's bus (the
 * template's own, as `examples/cdk-app` declares one, or one the scenario adds as a platform team
 * would), read with the administrator's credentials. Each message is the EventBridge event; its
 * `detail` is checked against the event type's published JSON Schema (events-schemas/).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import Ajv from 'ajv-draft-04';
import type { AdminClients } from './admin';
import type { Deployment } from './model';

export interface BusEvent {
  readonly source: string;
  readonly 'detail-type': string;
  readonly detail: { id?: string; type?: string; schemaVersion?: number; [k: string]: unknown };
}

export interface ConsumerQueue {
  readonly url: string;
  readonly arn: string;
  /** How the queue came to be: the template's rule, or one added by the scenario. */
  readonly origin: string;
  /** Every event read so far (read messages are deleted, as a consumer does). */
  readonly events: BusEvent[];
  drain(): Promise<BusEvent[]>;
}

const SCHEMAS = join(import.meta.dirname, '../../events-schemas');

/** Checks an event's detail against `events-schemas/<type>.v<n>.json`: undefined when valid, else why not. */
export function schemaProblem(event: BusEvent): string | undefined {
  const { type, schemaVersion } = event.detail;
  let schema: object;
  try {
    schema = JSON.parse(readFileSync(join(SCHEMAS, `${type}.v${schemaVersion}.json`), 'utf8')) as object;
  } catch {
    return `no published schema for ${type} v${schemaVersion}`;
  }
  const ajv = new Ajv({ strict: false }).addFormat('date-time', /^\d{4}-\d{2}-\d{2}T/);
  const validate = ajv.compile(schema);
  return validate(event.detail) ? undefined : ajv.errorsText(validate.errors);
}

function queueReader(admin: AdminClients, url: string, arn: string, origin: string): ConsumerQueue {
  const events: BusEvent[] = [];
  return {
    url,
    arn,
    origin,
    events,
    async drain() {
      for (;;) {
        const r = await admin.sqs.send(
          new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
        );
        const messages = r.Messages ?? [];
        if (messages.length === 0) return events;
        for (const m of messages) {
          events.push(JSON.parse(m.Body ?? '{}') as BusEvent);
          await admin.sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle }));
        }
      }
    },
  };
}

/**
 * The queue a rule of the templates sends `detailType` events to, if the app declares one (other than
 * Carhook's own fan-out); otherwise a queue and rule the scenario creates on `busName`.
 */
export async function consumerQueue(
  admin: AdminClients,
  deployment: Deployment,
  busName: string,
  source: string,
  detailTypes: readonly string[],
  name: string,
): Promise<ConsumerQueue> {
  const declared = deployment.rules.find((r) => {
    const pattern = r.pattern as { 'detail-type'?: unknown } | undefined;
    const types = pattern?.['detail-type'];
    return (
      Array.isArray(types) &&
      detailTypes.every((t) => types.includes(t)) &&
      r.targets.some((t) => t.arn.startsWith('arn:aws:sqs:'))
    );
  });
  const target = declared?.targets.find((t) => t.arn.startsWith('arn:aws:sqs:'));
  const queue = target && deployment.queues.find((q) => q.arn === target.arn);
  if (declared && queue)
    return queueReader(admin, queue.url, queue.arn, `the templates' rule ${declared.logicalId}`);

  const created = await admin.sqs.send(new CreateQueueCommand({ QueueName: name }));
  const url = created.QueueUrl ?? '';
  const attrs = await admin.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  const arn = attrs.Attributes?.QueueArn ?? '';
  await admin.events.send(
    new PutRuleCommand({
      Name: name,
      EventBusName: busName,
      EventPattern: JSON.stringify({ source: [source], 'detail-type': detailTypes }),
    }),
  );
  await admin.events.send(
    new PutTargetsCommand({ Rule: name, EventBusName: busName, Targets: [{ Id: 'queue', Arn: arn }] }),
  );
  return queueReader(admin, url, arn, `a rule the scenario added (${name})`);
}

/** Throws, saying what differs, unless the event has this source and type and its detail matches its schema. */
export function checkBusEvent(event: BusEvent, source: string, type: string): void {
  if (event.source !== source) throw new Error(`source is ${event.source}, not ${source}`);
  if (event.detail.type !== type) throw new Error(`detail.type is ${event.detail.type}, not ${type}`);
  const problem = schemaProblem(event);
  if (problem) throw new Error(`detail does not match events-schemas/${type}: ${problem}`);
}
