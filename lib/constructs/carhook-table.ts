import { RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import {
  AttributeType,
  Billing,
  type GlobalSecondaryIndexPropsV2,
  ProjectionType,
  TableEncryptionV2,
  TableV2,
} from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { CarhookConfigError } from '../validation';

/**
 * The single table as plain data: the same description the local runtime creates its DynamoDB
 * Local table from (functions/adapters/dynamodb/table.ts, structurally assignable to this), so the
 * deployed table and the local one cannot drift.
 */
export interface CarhookTableDefinition {
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
  readonly globalSecondaryIndexes: readonly IndexDefinition[];
  /** Epoch seconds attribute DynamoDB TTL deletes items by. */
  readonly timeToLiveAttribute: string;
}

export interface KeyAttribute {
  readonly name: string;
  readonly type: 'S' | 'N' | 'B';
}

export interface IndexDefinition {
  readonly indexName: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
  /** @default 'ALL' */
  readonly projectionType?: 'ALL' | 'KEYS_ONLY';
}

export interface CarhookTableProps {
  readonly definition: CarhookTableDefinition;
  /** Customer-managed key the table is encrypted with. */
  readonly encryptionKey: IKey;
  /** RETAIN keeps the table (and turns deletion protection on); DESTROY is for throwaway stages. */
  readonly removalPolicy: RemovalPolicy;
}

const attributeTypes = { S: AttributeType.STRING, N: AttributeType.NUMBER, B: AttributeType.BINARY } as const;

/**
 * The Carhook single table: on-demand, point-in-time recovery, TTL, KMS (customer key), and
 * deletion protection whenever the table is retained. It remembers its index names so grants can
 * name each index instead of `index/*`.
 */
export class CarhookTable extends TableV2 {
  /** Names of the global secondary indexes, for least-privilege grants. */
  readonly indexNames: readonly string[];
  /** The key that encrypts the table (always set: the table is never AWS-owned-key encrypted). */
  readonly tableKey: IKey;

  constructor(scope: Construct, id: string, props: CarhookTableProps) {
    const { definition } = props;
    validateDefinition(definition);
    if (Token.isUnresolved(Stack.of(scope).region)) {
      // TableV2 renders the customer key per replica region, which needs the region at synth time.
      throw new CarhookConfigError(
        'env.region',
        `of stack ${Stack.of(scope).stackName} must be set: the table's customer-managed key is configured per region (e.g. env: { region: process.env.CDK_DEFAULT_REGION })`,
      );
    }
    const retained = props.removalPolicy !== RemovalPolicy.DESTROY;
    super(scope, id, {
      partitionKey: keyAttribute(definition.partitionKey),
      ...(definition.sortKey ? { sortKey: keyAttribute(definition.sortKey) } : {}),
      globalSecondaryIndexes: definition.globalSecondaryIndexes.map(indexProps),
      timeToLiveAttribute: definition.timeToLiveAttribute,
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // Deletion protection would make a DESTROY stack fail to delete, so it follows retention.
      deletionProtection: retained,
      encryption: TableEncryptionV2.customerManagedKey(props.encryptionKey),
      removalPolicy: props.removalPolicy,
    });
    this.indexNames = definition.globalSecondaryIndexes.map((i) => i.indexName);
    this.tableKey = props.encryptionKey;
  }
}

function keyAttribute(attribute: KeyAttribute) {
  return { name: attribute.name, type: attributeTypes[attribute.type] };
}

function indexProps(index: IndexDefinition): GlobalSecondaryIndexPropsV2 {
  return {
    indexName: index.indexName,
    partitionKey: keyAttribute(index.partitionKey),
    ...(index.sortKey ? { sortKey: keyAttribute(index.sortKey) } : {}),
    projectionType: ProjectionType[index.projectionType ?? 'ALL'],
  };
}

/** Catches a malformed definition with the field named, before CloudFormation would. */
function validateDefinition(definition: CarhookTableDefinition): void {
  const attributeName = /^[A-Za-z0-9_.-]{1,255}$/;
  const check = (prop: string, name: string) => {
    if (!attributeName.test(name)) {
      throw new CarhookConfigError(`table.${prop}`, `must be a DynamoDB attribute name, got '${name}'`);
    }
  };
  check('partitionKey.name', definition.partitionKey.name);
  if (definition.sortKey) check('sortKey.name', definition.sortKey.name);
  check('timeToLiveAttribute', definition.timeToLiveAttribute);
  const seen = new Set<string>();
  definition.globalSecondaryIndexes.forEach((index, i) => {
    const at = `globalSecondaryIndexes[${i}]`;
    if (!/^[A-Za-z0-9_.-]{3,255}$/.test(index.indexName)) {
      throw new CarhookConfigError(
        `table.${at}.indexName`,
        `must be 3-255 of [A-Za-z0-9_.-], got '${index.indexName}'`,
      );
    }
    if (seen.has(index.indexName)) {
      throw new CarhookConfigError(`table.${at}.indexName`, `repeats index '${index.indexName}'`);
    }
    seen.add(index.indexName);
    check(`${at}.partitionKey.name`, index.partitionKey.name);
    if (index.sortKey) check(`${at}.sortKey.name`, index.sortKey.name);
  });
  // One attribute, one type: CloudFormation rejects two AttributeDefinitions for the same name.
  const types = new Map<string, string>();
  const keys: [string, KeyAttribute | undefined][] = [
    ['partitionKey', definition.partitionKey],
    ['sortKey', definition.sortKey],
    ...definition.globalSecondaryIndexes.flatMap((index, i): [string, KeyAttribute | undefined][] => [
      [`globalSecondaryIndexes[${i}].partitionKey`, index.partitionKey],
      [`globalSecondaryIndexes[${i}].sortKey`, index.sortKey],
    ]),
  ];
  for (const [prop, key] of keys) {
    if (key === undefined) continue;
    const known = types.get(key.name);
    if (known !== undefined && known !== key.type) {
      throw new CarhookConfigError(
        `table.${prop}`,
        `declares '${key.name}' as ${key.type}, elsewhere it is ${known}`,
      );
    }
    types.set(key.name, key.type);
  }
  // DynamoDB's default quota: 20 GSIs per table.
  if (definition.globalSecondaryIndexes.length > 20) {
    throw new CarhookConfigError(
      'table.globalSecondaryIndexes',
      'must have at most 20 indexes (DynamoDB default quota)',
    );
  }
}
