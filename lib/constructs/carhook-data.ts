import { Duration, type RemovalPolicy, SecretValue, Validations } from 'aws-cdk-lib';
import { Archive, type CfnArchive, EventBus, type IEventBus } from 'aws-cdk-lib/aws-events';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { CARHOOK_DEFAULTS } from '../config';
import { EVENTS_SCHEMAS_DIR } from '../paths';
import { carhookTableDefinition } from '../table-definition';
import { requirePattern, requireWholeDuration } from '../validation';
import { CarhookTable, type CarhookTableDefinition } from './carhook-table';
import { EventSchemaRegistry } from './event-schema-registry';

export interface CarhookDataProps {
  /**
   * EventBridge `Source` of Carhook's events: the archive keeps only these, and the schemas are
   * named `<eventSource>@<type>`.
   * @default 'carhook'
   */
  readonly eventSource?: string;
  /**
   * Publish to this bus instead of creating one (e.g. the organisation's central bus). The archive
   * is still created on it, filtered to `eventSource`.
   * @default - a new bus
   */
  readonly existingEventBus?: IEventBus;
  /**
   * How long the bus archive keeps Carhook's events for replay.
   * @default 30 days (the event log retention)
   */
  readonly archiveRetention?: Duration;
  /**
   * What happens to the table, key and secrets when they leave the stack. `RETAIN` (default) also
   * turns table deletion protection on; use `DESTROY` only for throwaway stages.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /** @default the repository's events-schemas/ directory */
  readonly schemasDirectory?: string;
  /** @default the runtime's single-table definition */
  readonly tableDefinition?: CarhookTableDefinition;
}

/** EventBridge rejects `aws.` sources from custom producers; the rest is the PutEvents `Source` charset. */
export const EVENT_SOURCE_PATTERN = /^(?!aws\.)[A-Za-z0-9][A-Za-z0-9._/-]{0,255}$/;

/** How to set a secret, shared by the descriptions and the README fragment. */
export const SECRET_INSTRUCTIONS = {
  apiClientCredentials:
    'Carhook connected-car API client (the application\'s client_id and client_secret). Set it before enrolling anyone: aws secretsmanager put-secret-value --secret-id <this secret\'s ARN> --secret-string \'{"clientId":"...","clientSecret":"..."}\'. Until then Carhook refuses to poll and says which secret is empty.',
  tokenKeyRing:
    'Carhook key ring for the OAuth tokens stored in DynamoDB (AES-256-GCM). Created with one random key: {"current":"k1","k1":"<43 random base64 characters = 32 bytes>"}. Nothing to set. To rotate: add an id with a new key (e.g. "k2": the output of `openssl rand -base64 32`), set "current" to it, and keep the old ids until every token has been re-encrypted (each ciphertext names its key id).',
  mapApiCredentials:
    'Carhook map update API HTTP basic credentials, only if you use map update events: aws secretsmanager put-secret-value --secret-id <this secret\'s ARN> --secret-string \'{"username":"...","password":"..."}\'. Leave empty otherwise: the map poll is skipped.',
  consoleToken:
    'Carhook console admin token: sign in to the console at the HTTP API\'s URL with it (read it with aws secretsmanager get-secret-value --secret-id <this secret\'s ARN> --query SecretString --output text). Generated at the first deploy. To rotate: aws secretsmanager put-secret-value --secret-id <ARN> --secret-string "$(openssl rand -hex 20)"; the previous token stops working within a minute.',
} as const;

/**
 * Carhook's stateful resources: the KMS key, the single table, the event bus with its archive, the
 * schema registry and the secrets. Deploy it in its own stack (CarhookDataStack) so the stateless
 * part can be replaced freely; nothing here depends on handler code.
 */
export class CarhookData extends Construct {
  /** Customer-managed key (rotation on) for the table and the secrets. */
  readonly key: Key;
  readonly table: CarhookTable;
  /** The bus events are published to: new, or `existingEventBus`. */
  readonly eventBus: IEventBus;
  /** Set when this construct created the bus. */
  readonly createdEventBus?: EventBus;
  /** Archive of Carhook's events on the bus, for replay. */
  readonly archive: Archive;
  readonly schemaRegistry: EventSchemaRegistry;
  /** `{ clientId, clientSecret }` of the API client. Empty until an operator sets it. */
  readonly apiClientCredentials: Secret;
  /**
   * `{ "current": "k1", "k1": "<43 base64 characters>" }`: key ids next to `current`, each a
   * base64 32-byte key. Generated with one random key (Secrets Manager can only generate a
   * top-level field, hence ids at the top level rather than under `keys`).
   */
  readonly tokenKeyRing: Secret;
  /** `{ username, password }` for the map update API (HTTP basic). Empty until set. */
  readonly mapApiCredentials: Secret;
  /**
   * The console's admin token on AWS (a bearer the console sends to `/console-api/…`, checked by
   * the console authorizer): 40 random letters and digits, generated at the first deploy.
   */
  readonly consoleToken: Secret;
  readonly eventSource: string;
  readonly removalPolicy: RemovalPolicy;

  constructor(scope: Construct, id: string, props: CarhookDataProps = {}) {
    super(scope, id);
    this.eventSource = props.eventSource ?? CARHOOK_DEFAULTS.eventSource;
    this.removalPolicy = props.removalPolicy ?? CARHOOK_DEFAULTS.removalPolicy;
    const archiveRetention = props.archiveRetention ?? CARHOOK_DEFAULTS.eventLogRetention;
    requirePattern(
      'eventSource',
      this.eventSource,
      EVENT_SOURCE_PATTERN,
      "1-256 of [A-Za-z0-9._/-], not starting with 'aws.'",
    );
    requireWholeDuration('archiveRetention', archiveRetention, 'days', 1, 3650);

    this.key = new Key(this, 'Key', {
      description: 'Carhook data: single table and secrets',
      enableKeyRotation: true,
      removalPolicy: this.removalPolicy,
      // The longest window: a deleted stack leaves a month to cancel the key's deletion.
      pendingWindow: Duration.days(30),
    });

    this.table = new CarhookTable(this, 'Table', {
      definition: props.tableDefinition ?? carhookTableDefinition,
      encryptionKey: this.key,
      removalPolicy: this.removalPolicy,
    });

    if (props.existingEventBus) {
      this.eventBus = props.existingEventBus;
    } else {
      this.createdEventBus = new EventBus(this, 'Bus', {
        description: `Carhook events (source '${this.eventSource}')`,
      });
      this.eventBus = this.createdEventBus;
    }
    this.archive = new Archive(this, 'Archive', {
      sourceEventBus: this.eventBus,
      description: `Carhook events (source '${this.eventSource}') for replay`,
      // Only our events: the bus may be shared with other producers.
      eventPattern: { source: [this.eventSource] },
      retention: archiveRetention,
    });

    // aws-cdk#37847: without a key the L2 renders `KmsKeyIdentifier: ""`, which some regions reject
    // (GeneralServiceException). Absent means the AWS owned key, as intended.
    const cfnArchive = this.archive.node.findChild('Archive') as CfnArchive;
    cfnArchive.addPropertyDeletionOverride('KmsKeyIdentifier');

    this.schemaRegistry = new EventSchemaRegistry(this, 'Schemas', {
      directory: props.schemasDirectory ?? EVENTS_SCHEMAS_DIR,
      eventSource: this.eventSource,
    });

    this.apiClientCredentials = new Secret(this, 'ApiClientCredentials', {
      description: SECRET_INSTRUCTIONS.apiClientCredentials,
      encryptionKey: this.key,
      removalPolicy: this.removalPolicy,
      // Not a secret yet: the shape an operator fills in. CloudFormation never rewrites it after.
      secretStringValue: SecretValue.unsafePlainText(JSON.stringify({ clientId: '', clientSecret: '' })),
    });
    this.tokenKeyRing = new Secret(this, 'TokenKeyRing', {
      description: SECRET_INSTRUCTIONS.tokenKeyRing,
      encryptionKey: this.key,
      removalPolicy: this.removalPolicy,
      generateSecretString: {
        secretStringTemplate: JSON.stringify({ current: 'k1' }),
        generateStringKey: 'k1',
        // 43 characters of [A-Za-z0-9] are valid base64 for exactly 32 bytes (AES-256) and carry
        // 43 x log2(62) = 256 bits of entropy.
        passwordLength: 43,
        excludePunctuation: true,
        includeSpace: false,
      },
    });
    this.mapApiCredentials = new Secret(this, 'MapApiCredentials', {
      description: SECRET_INSTRUCTIONS.mapApiCredentials,
      encryptionKey: this.key,
      removalPolicy: this.removalPolicy,
      secretStringValue: SecretValue.unsafePlainText(JSON.stringify({ username: '', password: '' })),
    });
    this.consoleToken = new Secret(this, 'ConsoleToken', {
      description: SECRET_INSTRUCTIONS.consoleToken,
      encryptionKey: this.key,
      removalPolicy: this.removalPolicy,
      generateSecretString: { passwordLength: 40, excludePunctuation: true, includeSpace: false },
    });
    Validations.of(this.consoleToken).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotated by an operator putting a new random value (see the secret description); the console authorizer picks it up within a minute and refuses the previous one. No rotation Lambda is needed for a bearer token nobody else derives.',
    });
    for (const secret of [this.apiClientCredentials, this.mapApiCredentials]) {
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          'Issued by the connected-car API provider (developer portal); there is no API to rotate them, so a rotation Lambda could not do anything. Operators rotate them at the provider and put the new value.',
      });
    }
    Validations.of(this.tokenKeyRing).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotated by adding a key to the ring (see the secret description), not by replacing the value: a Secrets Manager rotation would make every stored token undecryptable.',
    });
  }
}
