import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Key } from 'aws-cdk-lib/aws-kms';
import { beforeAll, describe, expect, it } from 'vitest';
import { tableDefinition } from '../../functions/adapters/dynamodb/table';
import { CarhookData } from '../../lib/constructs/carhook-data';
import { CarhookTable, type CarhookTableDefinition } from '../../lib/constructs/carhook-table';
import { readEventSchemas } from '../../lib/constructs/event-schema-registry';
import { EVENTS_SCHEMAS_DIR } from '../../lib/paths';
import { CarhookDataStack } from '../../lib/stateful-stack';
import { CarhookConfigError } from '../../lib/validation';
import { testApp } from './support';

const env = { account: '111111111111', region: 'eu-west-1' };
type Resources = Record<
  string,
  { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string }
>;

function schemaDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'carhook-schemas-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}
const DRAFT4 = JSON.stringify({
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'x v1',
  type: 'object',
});

describe('CarhookDataStack (stateful resources)', () => {
  let stack: CarhookDataStack;
  let template: Template;
  let resources: Resources;
  const ofType = (type: string) => Object.values(resources).filter((r) => r.Type === type);

  beforeAll(() => {
    stack = new CarhookDataStack(testApp(), 'Data', { env });
    template = Template.fromStack(stack);
    resources = template.toJSON().Resources as Resources;
  });

  it('creates one customer-managed KMS key with rotation, retained, with the longest deletion window', () => {
    template.resourceCountIs('AWS::KMS::Key', 1);
    template.hasResource('AWS::KMS::Key', {
      Properties: { EnableKeyRotation: true, PendingWindowInDays: 30 },
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });

  it('builds the table from the runtime table definition: keys, indexes and TTL cannot drift', () => {
    const [table] = ofType('AWS::DynamoDB::GlobalTable');
    expect(table).toBeDefined();
    const p = table?.Properties as {
      KeySchema: unknown[];
      GlobalSecondaryIndexes: Array<{ IndexName: string; KeySchema: unknown[]; Projection: unknown }>;
      TimeToLiveSpecification: unknown;
    };
    expect(p.KeySchema).toEqual([
      { AttributeName: tableDefinition.partitionKey.name, KeyType: 'HASH' },
      { AttributeName: tableDefinition.sortKey.name, KeyType: 'RANGE' },
    ]);
    expect(p.GlobalSecondaryIndexes.map((i) => i.IndexName)).toEqual(
      tableDefinition.globalSecondaryIndexes.map((i) => i.indexName),
    );
    for (const [i, index] of tableDefinition.globalSecondaryIndexes.entries()) {
      expect(p.GlobalSecondaryIndexes[i]).toMatchObject({
        KeySchema: [
          { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
          { AttributeName: index.sortKey.name, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: index.projectionType },
      });
    }
    expect(p.TimeToLiveSpecification).toEqual({ AttributeName: 'expiresAt', Enabled: true });
    expect(tableDefinition.timeToLiveAttribute).toBe('expiresAt');
  });

  it('makes the table on-demand, point-in-time recoverable, deletion protected, KMS encrypted and retained', () => {
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      Properties: {
        BillingMode: 'PAY_PER_REQUEST',
        SSESpecification: { SSEEnabled: true, SSEType: 'KMS' },
        Replicas: [
          {
            Region: 'eu-west-1',
            DeletionProtectionEnabled: true,
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
            SSESpecification: { KMSMasterKeyId: stack.resolve(stack.data.key.keyArn) },
          },
        ],
      },
      DeletionPolicy: 'Retain',
    });
  });

  it('creates a new event bus and archives only Carhook events on it, 30 days by default', () => {
    template.resourceCountIs('AWS::Events::EventBus', 1);
    template.resourceCountIs('AWS::Events::Archive', 1);
    template.hasResourceProperties('AWS::Events::Archive', {
      SourceArn: stack.resolve(stack.data.eventBus.eventBusArn),
      EventPattern: { source: ['carhook'] },
      RetentionDays: 30,
    });
    // Not the empty KmsKeyIdentifier CDK renders by default (aws-cdk#37847).
    expect(ofType('AWS::Events::Archive')[0]?.Properties).not.toHaveProperty('KmsKeyIdentifier');
  });

  it('registers one JSONSchemaDraft4 schema per file of events-schemas/, named <source>@<file>', () => {
    const files = readdirSync(EVENTS_SCHEMAS_DIR).filter((f) => f.endsWith('.json'));
    template.resourceCountIs('AWS::EventSchemas::Registry', 1);
    template.resourceCountIs('AWS::EventSchemas::Schema', files.length);
    const schemas = ofType('AWS::EventSchemas::Schema').map((r) => r.Properties);
    expect(schemas.map((s) => s.SchemaName).sort()).toEqual(
      files.map((f) => `carhook@${f.slice(0, -5)}`).sort(),
    );
    for (const s of schemas) {
      expect(s.Type).toBe('JSONSchemaDraft4');
      expect(s.RegistryName).toEqual(stack.resolve(stack.data.schemaRegistry.registry.attrRegistryName));
      const file = `${String(s.SchemaName).slice('carhook@'.length)}.json`;
      expect(JSON.parse(s.Content as string)).toEqual(
        JSON.parse(readFileSync(join(EVENTS_SCHEMAS_DIR, file), 'utf8')),
      );
    }
  });

  it('creates the four secrets encrypted with the key, each describing how to set it', () => {
    template.resourceCountIs('AWS::SecretsManager::Secret', 4);
    const keyArn = stack.resolve(stack.data.key.keyArn);
    for (const secret of ofType('AWS::SecretsManager::Secret')) {
      expect(secret.Properties.KmsKeyId).toEqual(keyArn);
      expect(secret.DeletionPolicy).toBe('Retain');
    }
    const byId = (c: { node: { defaultChild?: unknown } }) =>
      resources[stack.getLogicalId(c.node.defaultChild as never)];
    const client = byId(stack.data.apiClientCredentials);
    expect(JSON.parse(client?.Properties.SecretString as string)).toEqual({ clientId: '', clientSecret: '' });
    expect(client?.Properties.Description).toMatch(/put-secret-value.*clientId.*clientSecret/);
    const map = byId(stack.data.mapApiCredentials);
    expect(JSON.parse(map?.Properties.SecretString as string)).toEqual({ username: '', password: '' });
    expect(map?.Properties.Description).toMatch(/put-secret-value.*username.*password/);
  });

  it('generates the token key ring with one random 32-byte key, so it is usable on first deploy', () => {
    const ring = resources[stack.getLogicalId(stack.data.tokenKeyRing.node.defaultChild as never)];
    expect(ring?.Properties.SecretString).toBeUndefined();
    expect(ring?.Properties.GenerateSecretString).toEqual({
      SecretStringTemplate: '{"current":"k1"}',
      GenerateStringKey: 'k1',
      PasswordLength: 43,
      ExcludePunctuation: true,
      IncludeSpace: false,
    });
    expect(ring?.Properties.Description).toMatch(/rotate/i);
  });

  it("generates the console's admin token (40 letters and digits) and says how to read and rotate it", () => {
    const token = resources[stack.getLogicalId(stack.data.consoleToken.node.defaultChild as never)];
    expect(token?.Properties.SecretString).toBeUndefined();
    expect(token?.Properties.GenerateSecretString).toEqual({
      PasswordLength: 40,
      ExcludePunctuation: true,
      IncludeSpace: false,
    });
    expect(token?.Properties.Description).toMatch(/get-secret-value[\s\S]*put-secret-value/);
  });

  it('outputs what an operator needs after deploying, and protects the stack from termination', () => {
    for (const name of [
      'TableName',
      'EventBusName',
      'EventSource',
      'ApiClientCredentialsSecretArn',
      'MapApiCredentialsSecretArn',
      'TokenKeyRingSecretArn',
    ]) {
      template.hasOutput(name, {});
    }
    expect(stack.terminationProtection).toBe(true);
  });
});

describe('CarhookDataStack options', () => {
  it('with removalPolicy DESTROY deletes table, key and secrets, and drops deletion and termination protection', () => {
    const stack = new CarhookDataStack(testApp(), 'Dev', { env, removalPolicy: RemovalPolicy.DESTROY });
    const template = Template.fromStack(stack);
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Delete',
      Properties: { Replicas: [Match.objectLike({ DeletionProtectionEnabled: false })] },
    });
    template.hasResource('AWS::KMS::Key', { DeletionPolicy: 'Delete' });
    template.allResources('AWS::SecretsManager::Secret', { DeletionPolicy: 'Delete' });
    expect(stack.terminationProtection).toBe(false);
  });

  it('publishes to an existing bus by ARN: no new bus, the archive on that bus', () => {
    const arn = 'arn:aws:events:eu-west-1:111111111111:event-bus/central';
    const template = Template.fromStack(
      new CarhookDataStack(testApp(), 'Arn', { env, existingEventBusArn: arn }),
    );
    template.resourceCountIs('AWS::Events::EventBus', 0);
    template.hasResourceProperties('AWS::Events::Archive', {
      SourceArn: arn,
      EventPattern: { source: ['carhook'] },
    });
  });

  it('publishes to an existing bus by name', () => {
    const stack = new CarhookDataStack(testApp(), 'Name', {
      env,
      existingEventBusName: 'central',
      eventSource: 'acme.carhook',
    });
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::Events::EventBus', 0);
    expect(JSON.stringify(template.findResources('AWS::Events::Archive'))).toContain('event-bus/central');
    template.hasResourceProperties('AWS::Events::Archive', { EventPattern: { source: ['acme.carhook'] } });
    template.hasResourceProperties('AWS::EventSchemas::Schema', {
      SchemaName: Match.stringLikeRegexp('^acme\\.carhook@'),
    });
  });

  it('keeps the archive for the retention asked', () => {
    const template = Template.fromStack(
      new CarhookDataStack(testApp(), 'Retention', { env, archiveRetention: Duration.days(90) }),
    );
    template.hasResourceProperties('AWS::Events::Archive', { RetentionDays: 90 });
  });

  it('refuses two ways of naming the existing bus', () => {
    expect(
      () =>
        new CarhookDataStack(testApp(), 'Both', {
          env,
          existingEventBusArn: 'arn:aws:events:eu-west-1:111111111111:event-bus/a',
          existingEventBusName: 'a',
        }),
    ).toThrow(/existingEventBusArn.*give one/);
  });

  it('refuses a region-agnostic stack, naming env.region', () => {
    expect(() => new CarhookData(new Stack(testApp(), 'Agnostic'), 'Data')).toThrow(CarhookConfigError);
    expect(() => new CarhookData(new Stack(testApp(), 'Agnostic'), 'Data')).toThrow(
      /`env\.region`.*must be set/,
    );
  });

  it('refuses an event source EventBridge reserves, and an archive retention that is not whole days', () => {
    const stack = () => new Stack(testApp(), 'S', { env });
    expect(() => new CarhookData(stack(), 'D', { eventSource: 'aws.carhook' })).toThrow(
      /`eventSource`.*'aws\.carhook'/,
    );
    expect(() => new CarhookData(stack(), 'D', { eventSource: '' })).toThrow(/`eventSource`/);
    expect(() => new CarhookData(stack(), 'D', { archiveRetention: Duration.hours(36) })).toThrow(
      /`archiveRetention` must be a whole number of days from 1 to 3650/,
    );
    expect(() => new CarhookData(stack(), 'D', { archiveRetention: Duration.days(0) })).toThrow(
      /`archiveRetention`/,
    );
  });
});

describe('event schema registry input (events-schemas/)', () => {
  const stackWith = (dir: string) =>
    new CarhookData(new Stack(testApp(), 'S', { env }), 'D', { schemasDirectory: dir });

  it('creates the registry with no schema when the directory has no JSON file', () => {
    const data = stackWith(schemaDir({ 'README.md': '# not a schema' }));
    const template = Template.fromStack(Stack.of(data));
    template.resourceCountIs('AWS::EventSchemas::Registry', 1);
    template.resourceCountIs('AWS::EventSchemas::Schema', 0);
  });

  it('reads files sorted, minified, with the description (or title) kept for the console', () => {
    const dir = schemaDir({
      'b.event.v1.json': JSON.stringify(
        { $schema: 'http://json-schema.org/draft-04/schema#', description: 'B happened' },
        null,
        2,
      ),
      'a.event.v1.json': DRAFT4,
    });
    const files = readEventSchemas(dir);
    expect(files.map((f) => f.name)).toEqual(['a.event.v1', 'b.event.v1']);
    expect(files[0]?.description).toBe('x v1');
    expect(files[1]?.description).toBe('B happened');
    expect(files[1]?.content).not.toContain('\n');
  });

  it('stops synthesis on a file that is not JSON, naming the file', () => {
    expect(() => stackWith(schemaDir({ 'vehicle.alert.raised.v1.json': '{ nope' }))).toThrow(
      /`events-schemas\/vehicle\.alert\.raised\.v1\.json` is not valid JSON/,
    );
  });

  it('stops synthesis on a schema that is not Draft 4, or not an object', () => {
    const draft7 = JSON.stringify({ $schema: 'http://json-schema.org/draft-07/schema#' });
    expect(() => stackWith(schemaDir({ 'x.v1.json': draft7 }))).toThrow(
      /`events-schemas\/x\.v1\.json` must declare "\$schema"/,
    );
    expect(() => stackWith(schemaDir({ 'x.v1.json': '[]' }))).toThrow(/must contain a JSON object/);
  });

  it('refuses a schema larger than the registry accepts', () => {
    const big = JSON.stringify({
      $schema: 'http://json-schema.org/draft-04/schema#',
      description: 'x'.repeat(100_001),
    });
    expect(() => stackWith(schemaDir({ 'big.v1.json': big }))).toThrow(/registry accepts 100000/);
  });

  it('refuses a directory that does not exist, naming schemasDirectory', () => {
    const missing = join(tmpdir(), 'carhook-no-such-dir', 'events-schemas');
    expect(() => stackWith(missing)).toThrow(/`schemasDirectory` cannot be read/);
  });

  it('ignores sub-directories and other files', () => {
    const dir = schemaDir({ 'a.v1.json': DRAFT4, 'notes.txt': 'x' });
    mkdirSync(join(dir, 'drafts'));
    expect(readEventSchemas(dir).map((f) => f.fileName)).toEqual(['a.v1.json']);
  });
});

describe('CarhookTable definition checks', () => {
  const base: CarhookTableDefinition = {
    partitionKey: { name: 'pk', type: 'S' },
    sortKey: { name: 'sk', type: 'S' },
    globalSecondaryIndexes: [],
    timeToLiveAttribute: 'expiresAt',
  };
  const build = (definition: CarhookTableDefinition) => {
    const stack = new Stack(testApp(), 'T', { env });
    return new CarhookTable(stack, 'Table', {
      definition,
      encryptionKey: new Key(stack, 'K'),
      removalPolicy: RemovalPolicy.RETAIN,
    });
  };
  const index = (indexName: string, pk = 'gpk', pkType: 'S' | 'N' = 'S') => ({
    indexName,
    partitionKey: { name: pk, type: pkType },
    sortKey: { name: 'gsk', type: 'S' as const },
  });

  it('remembers its index names for least-privilege grants', () => {
    expect(build({ ...base, globalSecondaryIndexes: [index('gsi1'), index('gsi2')] }).indexNames).toEqual([
      'gsi1',
      'gsi2',
    ]);
  });

  it('refuses a bad attribute name, a repeated index and an attribute with two types', () => {
    expect(() => build({ ...base, timeToLiveAttribute: 'expires at' })).toThrow(
      /`table\.timeToLiveAttribute`/,
    );
    expect(() => build({ ...base, globalSecondaryIndexes: [index('gsi1'), index('gsi1')] })).toThrow(
      /`table\.globalSecondaryIndexes\[1\]\.indexName` repeats index 'gsi1'/,
    );
    expect(() => build({ ...base, globalSecondaryIndexes: [index('gsi1', 'pk', 'N')] })).toThrow(
      /`table\.globalSecondaryIndexes\[0\]\.partitionKey` declares 'pk' as N, elsewhere it is S/,
    );
    expect(() => build({ ...base, globalSecondaryIndexes: [index('ab')] })).toThrow(
      /indexName` must be 3-255/,
    );
  });
});
