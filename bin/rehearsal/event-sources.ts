/**
 * Lambda's SQS event source mappings and EventBridge Scheduler, played for the rehearsal. A test
 * harness, documented as such: it delivers events as those services do and fakes nothing else.
 *
 * SQS (as the mapping configures it): receive up to `BatchSize` messages with the function's own
 * role (the mapping polls with the execution role), invoke with the SQS event, then delete what
 * succeeded. With `ReportBatchItemFailures` the reported items stay (their visibility timeout,
 * or the one the function set, brings them back; moto moves a message past `maxReceiveCount` to the
 * dead-letter queue); a response naming a message not in the batch fails the whole batch. A failed
 * invocation leaves the whole batch.
 *
 * Scheduler (on command, not on a timer: the scenario decides when a tick happens): the schedule's
 * role must be allowed to invoke the target; the target gets the schedule's `Input` (`{}` without one).
 */
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { clientConfig } from './admin';
import type { PolicyEvaluator, Principal } from './iam';
import type { FunctionHost, InvokeOutcome } from './lambda-host';
import type { EventSourceMapping, RehearsedQueue, RehearsedSchedule } from './model';

export interface SourceIncident {
  readonly source: string;
  readonly function: string;
  readonly message: string;
}

export interface PollerOptions {
  readonly mapping: EventSourceMapping;
  readonly queue: RehearsedQueue;
  readonly host: FunctionHost;
  /** The function's role session: the mapping receives and deletes with it. */
  readonly principal: Principal;
  readonly awsEndpoint: string;
  readonly region: string;
  readonly onIncident: (incident: SourceIncident) => void;
  readonly onBatch?: (mapping: EventSourceMapping, size: number, outcome: InvokeOutcome) => void;
}

export class SqsPoller {
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly sqs: SQSClient;
  /** Batches handed to the function so far. */
  batches = 0;
  private inFlight = 0;

  constructor(private readonly options: PollerOptions) {
    this.sqs = new SQSClient(
      clientConfig(options.awsEndpoint, options.region, options.principal.credentials),
    );
  }

  start(): void {
    if (!this.options.mapping.enabled || this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** True while a batch is being processed. */
  get busy(): boolean {
    return this.inFlight > 0;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    this.sqs.destroy();
  }

  private async run(): Promise<void> {
    const { mapping, queue, host } = this.options;
    while (this.running) {
      let messages: Message[] = [];
      try {
        const received = await this.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queue.url,
            MaxNumberOfMessages: Math.min(10, mapping.batchSize),
            // Short waits so a stop is prompt; Lambda long-polls, with the same result.
            WaitTimeSeconds: 1,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
        );
        messages = received.Messages ?? [];
      } catch (error) {
        if (!this.running) return;
        this.incident(`receive from ${queue.name} failed: ${describe(error)}`);
        await sleep(1_000);
        continue;
      }
      if (messages.length === 0) continue;
      this.inFlight += 1;
      try {
        this.batches += 1;
        const outcome = await host.invoke(sqsEvent(messages, queue, this.options.region));
        this.options.onBatch?.(mapping, messages.length, outcome);
        if (!outcome.ok) {
          this.incident(`${outcome.kind}: ${outcome.errorType}: ${outcome.errorMessage}`);
          continue; // the whole batch stays
        }
        const failed = new Set<string>();
        if (mapping.reportBatchItemFailures) {
          const items =
            (outcome.value as { batchItemFailures?: { itemIdentifier?: string }[] } | null)
              ?.batchItemFailures ?? [];
          const ids = new Set(messages.map((m) => m.MessageId));
          if (items.some((i) => !i.itemIdentifier || !ids.has(i.itemIdentifier))) {
            this.incident(
              `batchItemFailures names a message that is not in the batch: ${JSON.stringify(items)}`,
            );
            continue; // Lambda treats the whole batch as failed
          }
          for (const i of items) failed.add(i.itemIdentifier as string);
        }
        const done = messages.filter((m) => !failed.has(m.MessageId ?? ''));
        if (done.length > 0) await this.delete(done);
      } finally {
        this.inFlight -= 1;
      }
    }
  }

  private async delete(messages: Message[]): Promise<void> {
    try {
      const result = await this.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: this.options.queue.url,
          Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
        }),
      );
      if ((result.Failed ?? []).length > 0) this.incident(`delete failed: ${JSON.stringify(result.Failed)}`);
    } catch (error) {
      this.incident(`delete from ${this.options.queue.name} failed: ${describe(error)}`);
    }
  }

  private incident(message: string): void {
    this.options.onIncident({
      source: this.options.mapping.logicalId,
      function: this.options.host.fn.logicalId,
      message,
    });
  }
}

/** The SQS event Lambda builds from received messages. */
export function sqsEvent(messages: readonly Message[], queue: RehearsedQueue, region: string): SQSEvent {
  return {
    Records: messages.map((m) => ({
      messageId: m.MessageId ?? '',
      receiptHandle: m.ReceiptHandle ?? '',
      body: m.Body ?? '',
      attributes: {
        ApproximateReceiveCount: m.Attributes?.ApproximateReceiveCount ?? '1',
        SentTimestamp: m.Attributes?.SentTimestamp ?? String(Date.now()),
        SenderId: m.Attributes?.SenderId ?? '',
        ApproximateFirstReceiveTimestamp:
          m.Attributes?.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      },
      messageAttributes: Object.fromEntries(
        Object.entries(m.MessageAttributes ?? {}).map(([k, v]) => [
          k,
          {
            dataType: v.DataType ?? 'String',
            ...(v.StringValue !== undefined ? { stringValue: v.StringValue } : {}),
          },
        ]),
      ),
      md5OfBody: m.MD5OfBody ?? '',
      eventSource: 'aws:sqs',
      eventSourceARN: queue.arn,
      awsRegion: region,
    })),
  };
}

/** One Scheduler tick: the role check, then the invocation with the schedule's input. */
export async function tick(
  schedule: RehearsedSchedule,
  host: FunctionHost,
  role: Principal,
  evaluator: PolicyEvaluator,
): Promise<InvokeOutcome> {
  const decision = await evaluator.decide(role, {
    action: 'lambda:InvokeFunction',
    resource: schedule.targetArn,
    context: {},
  });
  if (!decision.allowed) {
    return {
      ok: false,
      kind: 'error',
      errorType: 'AccessDeniedException',
      errorMessage: `schedule ${schedule.logicalId}: its role may not lambda:InvokeFunction ${schedule.targetArn} (${decision.reason})`,
      ms: 0,
      cold: false,
    };
  }
  return host.invoke(JSON.parse(schedule.input ?? '{}'));
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
