import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import * as lib from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoDb, type JsonBody } from '../../../functions/adapters/dynamodb/client';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DocumentClient,
  type DocumentCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '../../../functions/adapters/dynamodb/document';
import { marshall, unmarshall } from '../../../functions/adapters/dynamodb/marshall';
import { callError } from './support';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const bytes = (text: string) => new Uint8Array(Buffer.from(text));

describe('DocumentClient matches lib-dynamodb on the wire', () => {
  // One fake DynamoDB answering both clients the same canned response per operation; we compare the
  // request bodies each client sent and the outputs each gave back.
  const item = {
    pk: { S: 'a' },
    b: { B: Buffer.from('hi').toString('base64') },
    ss: { SS: ['x', 'y'] },
    ns: { NS: ['1', '2.5'] },
    bs: { BS: [Buffer.from('z').toString('base64')] },
    big: { N: '12345678901234567890' },
    m: { M: { l: { L: [{ NULL: true }, { BOOL: true }, { S: '' }] } } },
  };
  const key = { pk: { S: 'a' } };
  const responses: Record<string, JsonBody> = {
    GetItem: { Item: item },
    PutItem: { Attributes: item },
    UpdateItem: {
      Attributes: item,
      ItemCollectionMetrics: { ItemCollectionKey: key, SizeEstimateRangeGB: [0, 1] },
    },
    DeleteItem: { Attributes: item },
    Query: { Items: [item, key], Count: 2, ScannedCount: 2, LastEvaluatedKey: key },
    Scan: { Items: [item], Count: 1, ScannedCount: 9, LastEvaluatedKey: key },
    BatchWriteItem: {
      UnprocessedItems: { t: [{ PutRequest: { Item: item } }, { DeleteRequest: { Key: key } }] },
    },
    BatchGetItem: {
      Responses: { t: [item, key] },
      UnprocessedKeys: { t: { Keys: [key], ProjectionExpression: 'pk' } },
    },
    TransactWriteItems: {},
    TransactGetItems: { Responses: [{ Item: item }, {}] },
  };
  const doc = {
    pk: 'a',
    n: 1.5,
    big: 12345678901234567890n,
    b: bytes('hi'),
    ss: new Set(['x']),
    ns: new Set([1, 2]),
    bs: new Set([bytes('z')]),
    nested: { l: [null, true, '', { deep: new Set(['q']) }], skip: undefined },
    gone: undefined,
  };
  const eav = { ':v': 1, ':s': new Set(['a']), ':m': { x: [1] }, ':b': bytes('k') };
  const inputs = {
    Get: { TableName: 't', Key: { pk: 'a', sk: 1 } },
    Put: { TableName: 't', Item: doc, ConditionExpression: 'n < :v', ExpressionAttributeValues: eav },
    Update: {
      TableName: 't',
      Key: { pk: 'a' },
      UpdateExpression: 'SET n = :v, s = :s, m = :m, b = :b',
      ExpressionAttributeValues: eav,
      ReturnValues: 'ALL_NEW' as const,
    },
    Delete: {
      TableName: 't',
      Key: { pk: 'a' },
      ConditionExpression: 'n = :v',
      ExpressionAttributeValues: { ':v': 2 },
    },
    Query: {
      TableName: 't',
      KeyConditionExpression: 'pk = :v',
      ExpressionAttributeValues: eav,
      ExclusiveStartKey: { pk: 'a', sk: bytes('s') },
      Limit: 2,
    },
    Scan: {
      TableName: 't',
      FilterExpression: 'n = :v',
      ExpressionAttributeValues: { ':v': 3 },
      ExclusiveStartKey: { pk: 'z' },
    },
    BatchWrite: {
      RequestItems: { t: [{ PutRequest: { Item: doc } }, { DeleteRequest: { Key: { pk: 'b', sk: 2 } } }] },
    },
    BatchGet: { RequestItems: { t: { Keys: [{ pk: 'a' }, { pk: bytes('b') }], ConsistentRead: true } } },
    TransactWrite: {
      TransactItems: [
        { Put: { TableName: 't', Item: doc, ConditionExpression: 'n < :v', ExpressionAttributeValues: eav } },
        {
          Update: {
            TableName: 't',
            Key: { pk: 'a' },
            UpdateExpression: 'SET n = :v',
            ExpressionAttributeValues: { ':v': 1 },
          },
        },
        {
          Delete: {
            TableName: 't',
            Key: { pk: 'b' },
            ConditionExpression: 'n = :v',
            ExpressionAttributeValues: { ':v': 1 },
          },
        },
        {
          ConditionCheck: {
            TableName: 't',
            Key: { pk: 'c' },
            ConditionExpression: 'n = :v',
            ExpressionAttributeValues: { ':v': 1 },
          },
        },
      ],
    },
    TransactGet: {
      TransactItems: [
        { Get: { TableName: 't', Key: { pk: 'a' } } },
        { Get: { TableName: 't', Key: { pk: 'b' } } },
      ],
    },
  };
  const commands: [string, (k: typeof lib) => unknown, () => DocumentCommand<unknown, unknown>][] = [
    ['Get', (k) => new k.GetCommand(inputs.Get), () => new GetCommand(inputs.Get)],
    ['Put', (k) => new k.PutCommand(inputs.Put), () => new PutCommand(inputs.Put)],
    ['Update', (k) => new k.UpdateCommand(inputs.Update), () => new UpdateCommand(inputs.Update)],
    ['Delete', (k) => new k.DeleteCommand(inputs.Delete), () => new DeleteCommand(inputs.Delete)],
    ['Query', (k) => new k.QueryCommand(inputs.Query), () => new QueryCommand(inputs.Query)],
    ['Scan', (k) => new k.ScanCommand(inputs.Scan), () => new ScanCommand(inputs.Scan)],
    [
      'BatchWrite',
      (k) => new k.BatchWriteCommand(inputs.BatchWrite),
      () => new BatchWriteCommand(inputs.BatchWrite),
    ],
    ['BatchGet', (k) => new k.BatchGetCommand(inputs.BatchGet), () => new BatchGetCommand(inputs.BatchGet)],
    [
      'TransactWrite',
      (k) => new k.TransactWriteCommand(inputs.TransactWrite),
      () => new TransactWriteCommand(inputs.TransactWrite),
    ],
    [
      'TransactGet',
      (k) => new k.TransactGetCommand(inputs.TransactGet),
      () => new TransactGetCommand(inputs.TransactGet),
    ],
  ];

  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString());
      const operation = String(req.headers['x-amz-target']).split('.')[1] ?? '';
      res
        .writeHead(200, { 'content-type': 'application/x-amz-json-1.0' })
        .end(JSON.stringify(responses[operation]));
    });
  });
  let endpoint = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it.each(commands)('%sCommand: same request body and same output', async (_name, theirs, ours) => {
    const sdk = lib.DynamoDBDocumentClient.from(
      new DynamoDBClient({ endpoint, region: 'local', credentials }),
      {
        marshallOptions: { removeUndefinedValues: true },
      },
    );
    const db = new DynamoDb({ endpoint, region: 'local', credentials });
    try {
      bodies.length = 0;
      const { $metadata: _, ...sdkOut } = (await sdk.send(theirs(lib) as never)) as Record<string, unknown>;
      const ourOut = await new DocumentClient(db).send(ours());
      expect(bodies).toHaveLength(2);
      // Both clients make up an idempotency token for TransactWriteItems: compare everything else.
      const [sdkBody, ourBody] = bodies.map((b) => ({ ...JSON.parse(b), ClientRequestToken: undefined }));
      expect(ourBody).toEqual(sdkBody);
      expect(ourOut).toEqual(sdkOut);
    } finally {
      db.destroy();
      sdk.destroy();
    }
  });

  it('names the path of a value it cannot marshall', async () => {
    const db = new DynamoDb({ endpoint, region: 'local', credentials });
    const sent: unknown[] = [];
    db.use(async (_op, body) => {
      sent.push(body);
      return {};
    });
    const bad = new TransactWriteCommand({
      TransactItems: [{ Put: { TableName: 't', Item: { pk: 'a', tags: [1, Number.NaN] } } }],
    });
    await expect(new DocumentClient(db).send(bad)).rejects.toThrow(
      /TransactItems\[0\]\.Put\.Item\.tags\[1\]/,
    );
    await expect(
      new DocumentClient(db, { removeUndefinedValues: false }).send(
        new PutCommand({ TableName: 't', Item: { a: [undefined] } }),
      ),
    ).rejects.toThrow(/Item\.a\[0\]/);
    expect(sent).toEqual([]);
    db.destroy();
  });
});

describe('DocumentClient against DynamoDB Local', () => {
  const TableName = `carhook-doc-${randomUUID()}`;
  const endpoint = inject('dynamoEndpoint');
  const sdk = new DynamoDBClient({ endpoint, region: 'local', credentials });
  const db = new DynamoDb({ endpoint, region: 'local', credentials });
  const client = new DocumentClient(db);

  beforeAll(async () => {
    await sdk.send(
      new CreateTableCommand({
        TableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
      }),
    );
  });
  afterAll(() => {
    db.destroy();
    sdk.destroy();
  });

  it('puts and gets an item with binaries, sets, big numbers and nesting unchanged', async () => {
    const item = {
      pk: 'vehicle#1',
      sk: 'state',
      blob: new Uint8Array([0, 255, 1, 128]),
      tags: new Set(['a', 'b']),
      odometers: new Set([1, 2.5, -3]),
      keys: new Set([bytes('k1'), bytes('k2')]),
      big: 12345678901234567890n,
      nested: { list: [1, 'two', null, false, { three: [3] }], empty: {}, emptyString: '' },
      skipped: undefined,
    };
    await client.send(new PutCommand({ TableName, Item: item }));
    const { Item } = await client.send(
      new GetCommand({ TableName, Key: { pk: 'vehicle#1', sk: 'state' }, ConsistentRead: true }),
    );
    const { skipped: _, ...stored } = item;
    expect(Item).toEqual(stored);
    expect(Item && 'skipped' in Item).toBe(false);
    // Read back independently through the AWS SDK: the attribute types DynamoDB stored.
    const raw = await sdk.send(
      new GetItemCommand({ TableName, Key: { pk: { S: 'vehicle#1' }, sk: { S: 'state' } } }),
    );
    expect(Object.keys(raw.Item?.tags ?? {})).toEqual(['SS']);
    expect(Object.keys(raw.Item?.odometers ?? {})).toEqual(['NS']);
    expect(Object.keys(raw.Item?.keys ?? {})).toEqual(['BS']);
    expect([...(raw.Item?.blob?.B ?? [])]).toEqual([0, 255, 1, 128]);
    expect(raw.Item?.big?.N).toBe('12345678901234567890');
  });

  it('updates with ReturnValues ALL_NEW and deletes with ALL_OLD', async () => {
    const Key = { pk: 'vehicle#2', sk: 'state' };
    await client.send(new PutCommand({ TableName, Item: { ...Key, n: 1 } }));
    const updated = await client.send(
      new UpdateCommand({
        TableName,
        Key,
        UpdateExpression: 'SET n = n + :one, tags = :tags',
        ExpressionAttributeValues: { ':one': 1, ':tags': new Set(['x']) },
        ReturnValues: 'ALL_NEW',
      }),
    );
    expect(updated.Attributes).toEqual({ ...Key, n: 2, tags: new Set(['x']) });
    const deleted = await client.send(new DeleteCommand({ TableName, Key, ReturnValues: 'ALL_OLD' }));
    expect(deleted.Attributes).toEqual({ ...Key, n: 2, tags: new Set(['x']) });
    expect(
      (await client.send(new GetCommand({ TableName, Key, ConsistentRead: true }))).Item,
    ).toBeUndefined();
  });

  it('batch-writes, then queries page by page with LastEvaluatedKey and scans with a filter', async () => {
    const pk = 'vehicle#3';
    const items = [0, 1, 2, 3, 4].map((i) => ({ pk, sk: `obs#${i}`, i }));
    const written = await client.send(
      new BatchWriteCommand({
        RequestItems: { [TableName]: items.map((Item) => ({ PutRequest: { Item } })) },
      }),
    );
    expect(written.UnprocessedItems ?? {}).toEqual({});
    await client.send(
      new BatchWriteCommand({
        RequestItems: { [TableName]: [{ DeleteRequest: { Key: { pk, sk: 'obs#4' } } }] },
      }),
    );

    const seen: unknown[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    let pages = 0;
    do {
      const page = await client.send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :obs)',
          ExpressionAttributeValues: { ':pk': pk, ':obs': 'obs#' },
          Limit: 2,
          ExclusiveStartKey,
        }),
      );
      pages++;
      seen.push(...(page.Items ?? []));
      ExclusiveStartKey = page.LastEvaluatedKey;
      if (ExclusiveStartKey) expect(ExclusiveStartKey).toEqual({ pk, sk: page.Items?.at(-1)?.sk });
    } while (ExclusiveStartKey);
    expect(seen).toEqual(items.slice(0, 4));
    expect(pages).toBe(2 + 1); // 2 + 2, then an empty last page

    const scanned = await client.send(
      new ScanCommand({
        TableName,
        FilterExpression: 'pk = :pk AND i >= :min',
        ExpressionAttributeValues: { ':pk': pk, ':min': 2 },
      }),
    );
    expect((scanned.Items ?? []).map((x) => x.i).sort()).toEqual([2, 3]);

    const got = await client.send(
      new BatchGetCommand({
        RequestItems: {
          [TableName]: {
            Keys: [
              { pk, sk: 'obs#0' },
              { pk, sk: 'obs#1' },
            ],
          },
        },
      }),
    );
    expect((got.Responses?.[TableName] ?? []).map((x) => x.i).sort()).toEqual([0, 1]);
    const transactGot = await client.send(
      new TransactGetCommand({
        TransactItems: [
          { Get: { TableName, Key: { pk, sk: 'obs#3' } } },
          { Get: { TableName, Key: { pk, sk: 'none' } } },
        ],
      }),
    );
    expect(transactGot.Responses?.map((r) => r.Item)).toEqual([items[3], undefined]);
  });

  it('fails a condition with ConditionalCheckFailedException carrying the raw current item (ALL_OLD)', async () => {
    const Item = { pk: 'vehicle#4', sk: 'state', odometer: 10, tags: new Set(['t']) };
    await client.send(new PutCommand({ TableName, Item }));
    const error = await callError(
      client.send(
        new PutCommand({
          TableName,
          Item: { ...Item, odometer: 11 },
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    expect(error.name).toBe('ConditionalCheckFailedException');
    expect(error.operation).toBe('PutItem');
    expect(error.Item).toEqual(marshall(Item));
    expect(unmarshall(error.Item ?? {})).toEqual(Item);
  });

  it('cancels a transaction with raw CancellationReasons in action order', async () => {
    const existing = { pk: 'vehicle#5', sk: 'state', v: 1 };
    await client.send(new PutCommand({ TableName, Item: existing }));
    const error = await callError(
      client.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName, Item: { pk: 'vehicle#5', sk: 'other', v: 1 } } },
            {
              ConditionCheck: {
                TableName,
                Key: { pk: 'vehicle#5', sk: 'state' },
                ConditionExpression: 'v = :two',
                ExpressionAttributeValues: { ':two': 2 },
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              },
            },
          ],
        }),
      ),
    );
    expect(error.name).toBe('TransactionCanceledException');
    expect(error.CancellationReasons?.map((r) => r.Code)).toEqual(['None', 'ConditionalCheckFailed']);
    expect(error.CancellationReasons?.[1]?.Item).toEqual(marshall(existing));
    // Nothing of the transaction was written.
    expect(
      (await client.send(new GetCommand({ TableName, Key: { pk: 'vehicle#5', sk: 'other' } }))).Item,
    ).toBeUndefined();
  });

  it('passes DynamoDB validation errors through as DynamoDbError, unretried', async () => {
    const error = await callError(
      client.send(
        new UpdateCommand({ TableName, Key: { pk: 'x', sk: 'y' }, UpdateExpression: 'SET = broken' }),
      ),
    );
    expect([error.name, error.statusCode, error.attempts]).toEqual(['ValidationException', 400, 1]);
  });
});
