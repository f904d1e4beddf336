import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { EventBus } from 'aws-cdk-lib/aws-events';
import type { Construct } from 'constructs';
import { CarhookData, type CarhookDataProps } from './constructs/carhook-data';
import { CarhookConfigError } from './validation';

export interface CarhookDataStackProps extends StackProps, CarhookDataProps {
  /** Publish to this existing bus (imported here, where its archive is created). Not with `existingEventBus`. */
  readonly existingEventBusArn?: string;
  /** Same, by name (a bus of this account and region). */
  readonly existingEventBusName?: string;
}

/**
 * The stateful half of a deployment: everything that holds data or identity (table, bus, archive,
 * schemas, secrets, key). It is deployed first and rarely changes; the stateless stack receives
 * `data` and can be destroyed and redeployed without touching it. Termination protection follows
 * the removal policy.
 */
export class CarhookDataStack extends Stack {
  readonly data: CarhookData;

  constructor(scope: Construct, id: string, props: CarhookDataStackProps = {}) {
    const retained = (props.removalPolicy ?? RemovalPolicy.RETAIN) !== RemovalPolicy.DESTROY;
    super(scope, id, { terminationProtection: retained, ...props });
    const byReference = [
      props.existingEventBusArn,
      props.existingEventBusName,
      props.existingEventBus,
    ].filter((v) => v !== undefined);
    if (byReference.length > 1) {
      throw new CarhookConfigError(
        'existingEventBusArn',
        'existingEventBusArn, existingEventBusName and existingEventBus name the same bus: give one',
      );
    }
    const existingEventBus =
      props.existingEventBusArn !== undefined
        ? EventBus.fromEventBusArn(this, 'ExistingBus', props.existingEventBusArn)
        : props.existingEventBusName !== undefined
          ? EventBus.fromEventBusName(this, 'ExistingBus', props.existingEventBusName)
          : props.existingEventBus;
    this.data = new CarhookData(this, 'Data', {
      ...(props.eventSource === undefined ? {} : { eventSource: props.eventSource }),
      ...(props.archiveRetention === undefined ? {} : { archiveRetention: props.archiveRetention }),
      ...(props.removalPolicy === undefined ? {} : { removalPolicy: props.removalPolicy }),
      ...(props.schemasDirectory === undefined ? {} : { schemasDirectory: props.schemasDirectory }),
      ...(props.tableDefinition === undefined ? {} : { tableDefinition: props.tableDefinition }),
      ...(existingEventBus === undefined ? {} : { existingEventBus }),
    });

    // What an operator needs after the first deploy (README: set the secrets).
    new CfnOutput(this, 'TableName', { value: this.data.table.tableName });
    new CfnOutput(this, 'EventBusName', { value: this.data.eventBus.eventBusName });
    new CfnOutput(this, 'EventSource', { value: this.data.eventSource });
    new CfnOutput(this, 'ApiClientCredentialsSecretArn', {
      value: this.data.apiClientCredentials.secretArn,
      description: 'Put {"clientId","clientSecret"} here before enrolling users',
    });
    new CfnOutput(this, 'MapApiCredentialsSecretArn', {
      value: this.data.mapApiCredentials.secretArn,
      description: 'Put {"username","password"} here to poll map updates',
    });
    new CfnOutput(this, 'TokenKeyRingSecretArn', { value: this.data.tokenKeyRing.secretArn });
  }
}
