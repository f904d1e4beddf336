/**
 * What IAM authorizes for one AWS API request: each action, the resource ARN it applies to and the
 * request's condition keys, as the Service Authorization Reference states them for the operations
 * Carhook's functions call. Every service they use speaks a JSON protocol (`X-Amz-Target` names
 * the operation), so a request is read from that header and its JSON body, nothing else.
 *
 * - DynamoDB: a transaction's items are authorized as the item operation each one is
 *   (`TransactWriteItems` → `PutItem`/`UpdateItem`/`DeleteItem`/`ConditionCheckItem` on each table),
 *   a batch as the batch action on each table, a query or scan on an index as that index's ARN.
 * - SQS: the batch operations are authorized as their single action (`SendMessageBatch` → `SendMessage`).
 * - EventBridge: `PutEvents` is authorized once per entry, on its bus, with the entry's
 *   `events:source` and `events:detail-type`.
 * - Secrets Manager: reading a secret encrypted with a customer managed key also needs `kms:Decrypt`
 *   on that key, through Secrets Manager (`kms:ViaService`).
 */
import type { Deployment } from './model';

export interface AuthorizationCheck {
  readonly action: string;
  readonly resource: string;
  readonly context: Readonly<Record<string, string | string[]>>;
}

export class UnmappedRequestError extends Error {
  readonly kind = 'Unmapped';
  constructor(
    readonly operation: string,
    reason: string,
  ) {
    super(`${operation}: ${reason}`);
    this.name = 'UnmappedRequestError';
  }
}

type Body = Record<string, unknown>;

const DYNAMODB_TRANSACT_ITEM: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
  Get: 'GetItem',
};

export const SQS_BATCH: Readonly<Record<string, string>> = {
  SendMessageBatch: 'SendMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
};

/** `service` is the SigV4 signing name (`dynamodb`, `sqs`, `events`, `secretsmanager`). */
export function authorizationChecks(
  service: string,
  operation: string,
  body: Body,
  deployment: Pick<Deployment, 'region' | 'account' | 'secrets'>,
): AuthorizationCheck[] {
  const { region, account } = deployment;
  const arn = (svc: string, resource: string) => `arn:aws:${svc}:${region}:${account}:${resource}`;
  const tableArn = (name: string) => (name.startsWith('arn:') ? name : arn('dynamodb', `table/${name}`));
  switch (service) {
    case 'dynamodb': {
      const check = (action: string, table: string, index?: string): AuthorizationCheck => ({
        action: `dynamodb:${action}`,
        resource: index ? `${tableArn(table)}/index/${index}` : tableArn(table),
        context: {},
      });
      if (operation === 'TransactWriteItems' || operation === 'TransactGetItems') {
        return ((body.TransactItems as Body[] | undefined) ?? []).flatMap((item) =>
          Object.entries(item).map(([kind, spec]) => {
            const action = DYNAMODB_TRANSACT_ITEM[kind];
            if (!action) throw new UnmappedRequestError(operation, `unknown transaction item ${kind}`);
            return check(action, String((spec as Body).TableName));
          }),
        );
      }
      if (operation === 'BatchGetItem' || operation === 'BatchWriteItem') {
        return Object.keys((body.RequestItems as Body | undefined) ?? {}).map((t) => check(operation, t));
      }
      if (typeof body.TableName !== 'string') {
        throw new UnmappedRequestError(operation, 'names no TableName (PartiQL is not used by Carhook)');
      }
      return [
        check(operation, body.TableName, typeof body.IndexName === 'string' ? body.IndexName : undefined),
      ];
    }
    case 'sqs': {
      const url = (body.QueueUrl as string | undefined) ?? '';
      const name = url ? url.split('/').at(-1) : (body.QueueName as string | undefined);
      if (!name) throw new UnmappedRequestError(operation, 'names no queue');
      return [
        { action: `sqs:${SQS_BATCH[operation] ?? operation}`, resource: arn('sqs', name), context: {} },
      ];
    }
    case 'events': {
      if (operation !== 'PutEvents') {
        const bus = String(body.EventBusName ?? 'default');
        return [{ action: `events:${operation}`, resource: busArn(bus, arn), context: {} }];
      }
      return ((body.Entries as Body[] | undefined) ?? []).map((entry) => ({
        action: 'events:PutEvents',
        resource: busArn(String(entry.EventBusName ?? 'default'), arn),
        context: {
          'events:source': [String(entry.Source ?? '')],
          'events:detail-type': [String(entry.DetailType ?? '')],
        },
      }));
    }
    case 'secretsmanager': {
      const id = String(body.SecretId ?? '');
      const secret = deployment.secrets.find(
        (s) => s.arn === id || s.name === id || s.arn.startsWith(`${id}-`),
      );
      if (!secret)
        throw new UnmappedRequestError(operation, `SecretId ${id} is not a secret of this deployment`);
      const checks: AuthorizationCheck[] = [
        { action: `secretsmanager:${operation}`, resource: secret.arn, context: {} },
      ];
      if (operation === 'GetSecretValue' && secret.kmsKeyArn) {
        checks.push({
          action: 'kms:Decrypt',
          resource: secret.kmsKeyArn,
          context: { 'kms:ViaService': `secretsmanager.${region}.amazonaws.com` },
        });
      }
      return checks;
    }
    default:
      throw new UnmappedRequestError(
        `${service}:${operation}`,
        'is a service the rehearsal does not authorize',
      );
  }
}

function busArn(bus: string, arn: (svc: string, resource: string) => string): string {
  return bus.startsWith('arn:') ? bus : arn('events', `event-bus/${bus}`);
}
