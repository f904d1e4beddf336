import type * as Lib from '@aws-sdk/lib-dynamodb';
import type { DynamoDb, DynamoOperation, JsonBody } from './client';
import { fromAttributeValue, toAttributeValue } from './marshall';

/**
 * lib-dynamodb's document layer on our client: the same commands, inputs and outputs, with plain
 * values where DynamoDB wants attribute values. Errors are the client's `DynamoDbError`, unchanged
 * (lib-dynamodb does not unmarshall an error's `Item` or `CancellationReasons` either).
 */
export interface DocumentCommand<I, O> {
  readonly operation: DynamoOperation;
  readonly input: I;
  /** Never set: carries the output type to `send`. */
  readonly __output?: O;
}

/**
 * Where attribute values sit in a request or a response, as lib-dynamodb's `inputKeyNodes` /
 * `outputKeyNodes` say: `value` is one attribute value, `each` every member of a map or a list,
 * `*` every key of a map or index of a list.
 */
type Node = 'value' | 'each' | { readonly [key: string]: Node };
interface Spec {
  readonly input: Node;
  readonly output: Node;
}

const join = (path: string, key: string | number): string =>
  typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;

function translate(
  value: unknown,
  node: Node,
  fn: (value: unknown, path: string) => unknown,
  path: string,
): unknown {
  if (node === 'value') return value === undefined ? value : fn(value, path);
  if (typeof value !== 'object' || value === null) return value;
  if (node === 'each' || node['*']) {
    const child = node === 'each' ? 'value' : (node['*'] as Node);
    // An undefined member is left out, as lib-dynamodb does even without removeUndefinedValues.
    if (Array.isArray(value)) {
      return value.filter((v) => v !== undefined).map((v, i) => translate(v, child, fn, join(path, i)));
    }
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return Object.fromEntries(entries.map(([k, v]) => [k, translate(v, child, fn, join(path, k))]));
  }
  const out: Record<string, unknown> = { ...value };
  for (const [key, child] of Object.entries(node)) {
    if (out[key] !== undefined) out[key] = translate(out[key], child, fn, join(path, key));
  }
  return out;
}

const EXPECTED: Node = { '*': { Value: 'value', AttributeValueList: 'each' } };
const CONDITIONS: Node = { '*': { AttributeValueList: 'each' } };
const WRITE_OUTPUT: Node = { Attributes: 'each', ItemCollectionMetrics: { ItemCollectionKey: 'each' } };
const READ_OUTPUT: Node = { Items: { '*': 'each' }, LastEvaluatedKey: 'each' };
const WRITE_REQUESTS: Node = {
  '*': { '*': { PutRequest: { Item: 'each' }, DeleteRequest: { Key: 'each' } } },
};
const COLLECTIONS: Node = { '*': { '*': { ItemCollectionKey: 'each' } } };
const EAV = 'each';

const SPECS: Partial<Record<DynamoOperation, Spec>> = {
  GetItem: { input: { Key: 'each' }, output: { Item: 'each' } },
  PutItem: {
    input: { Item: 'each', Expected: EXPECTED, ExpressionAttributeValues: EAV },
    output: WRITE_OUTPUT,
  },
  UpdateItem: {
    input: {
      Key: 'each',
      AttributeUpdates: { '*': { Value: 'value' } },
      Expected: EXPECTED,
      ExpressionAttributeValues: EAV,
    },
    output: WRITE_OUTPUT,
  },
  DeleteItem: {
    input: { Key: 'each', Expected: EXPECTED, ExpressionAttributeValues: EAV },
    output: WRITE_OUTPUT,
  },
  Query: {
    input: {
      KeyConditions: CONDITIONS,
      QueryFilter: CONDITIONS,
      ExclusiveStartKey: 'each',
      ExpressionAttributeValues: EAV,
    },
    output: READ_OUTPUT,
  },
  Scan: {
    input: { ScanFilter: CONDITIONS, ExclusiveStartKey: 'each', ExpressionAttributeValues: EAV },
    output: READ_OUTPUT,
  },
  BatchWriteItem: {
    input: { RequestItems: WRITE_REQUESTS },
    output: { UnprocessedItems: WRITE_REQUESTS, ItemCollectionMetrics: COLLECTIONS },
  },
  BatchGetItem: {
    input: { RequestItems: { '*': { Keys: { '*': 'each' } } } },
    output: { Responses: { '*': { '*': 'each' } }, UnprocessedKeys: { '*': { Keys: { '*': 'each' } } } },
  },
  TransactWriteItems: {
    input: {
      TransactItems: {
        '*': {
          ConditionCheck: { Key: 'each', ExpressionAttributeValues: EAV },
          Put: { Item: 'each', ExpressionAttributeValues: EAV },
          Delete: { Key: 'each', ExpressionAttributeValues: EAV },
          Update: { Key: 'each', ExpressionAttributeValues: EAV },
        },
      },
    },
    output: { ItemCollectionMetrics: COLLECTIONS },
  },
  TransactGetItems: {
    input: { TransactItems: { '*': { Get: { Key: 'each' } } } },
    output: { Responses: { '*': { Item: 'each' } } },
  },
};

export class DocumentClient {
  readonly db: DynamoDb;
  readonly #removeUndefinedValues: boolean;

  constructor(db: DynamoDb, options: { removeUndefinedValues?: boolean } = {}) {
    this.db = db;
    this.#removeUndefinedValues = options.removeUndefinedValues ?? true;
  }

  async send<I, O>(command: DocumentCommand<I, O>, options?: { signal?: AbortSignal }): Promise<O> {
    const spec = SPECS[command.operation];
    const removeUndefinedValues = this.#removeUndefinedValues;
    const body = spec
      ? translate(
          command.input,
          spec.input,
          (v, path) => toAttributeValue(v, { removeUndefinedValues, path }),
          '',
        )
      : command.input;
    const out = await this.db.call(command.operation, body as JsonBody, options);
    return (spec ? translate(out, spec.output, fromAttributeValue, '') : out) as O;
  }
}

/** lib-dynamodb's outputs, less the SDK's `$metadata` (this client has none). */
type Output<T> = Omit<T, '$metadata'>;

abstract class Command<I, O> implements DocumentCommand<I, O> {
  abstract readonly operation: DynamoOperation;
  declare readonly __output?: O;
  readonly input: I;
  constructor(input: I) {
    this.input = input;
  }
}

export class GetCommand extends Command<Lib.GetCommandInput, Output<Lib.GetCommandOutput>> {
  readonly operation = 'GetItem';
}
export class PutCommand extends Command<Lib.PutCommandInput, Output<Lib.PutCommandOutput>> {
  readonly operation = 'PutItem';
}
export class UpdateCommand extends Command<Lib.UpdateCommandInput, Output<Lib.UpdateCommandOutput>> {
  readonly operation = 'UpdateItem';
}
export class DeleteCommand extends Command<Lib.DeleteCommandInput, Output<Lib.DeleteCommandOutput>> {
  readonly operation = 'DeleteItem';
}
export class QueryCommand extends Command<Lib.QueryCommandInput, Output<Lib.QueryCommandOutput>> {
  readonly operation = 'Query';
}
export class ScanCommand extends Command<Lib.ScanCommandInput, Output<Lib.ScanCommandOutput>> {
  readonly operation = 'Scan';
}
export class BatchWriteCommand extends Command<
  Lib.BatchWriteCommandInput,
  Output<Lib.BatchWriteCommandOutput>
> {
  readonly operation = 'BatchWriteItem';
}
export class BatchGetCommand extends Command<Lib.BatchGetCommandInput, Output<Lib.BatchGetCommandOutput>> {
  readonly operation = 'BatchGetItem';
}
export class TransactWriteCommand extends Command<
  Lib.TransactWriteCommandInput,
  Output<Lib.TransactWriteCommandOutput>
> {
  readonly operation = 'TransactWriteItems';
}
export class TransactGetCommand extends Command<
  Lib.TransactGetCommandInput,
  Output<Lib.TransactGetCommandOutput>
> {
  readonly operation = 'TransactGetItems';
}
