/**
 * A platform team's stack: Carhook by its package name (`carhook/cdk`), and one EventBridge rule on
 * Carhook's bus that sends every `vehicle.alert.raised` event to an SQS queue of ours.
 */
import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Carhook, type CarhookProps } from 'carhook/cdk';
import type { Construct } from 'constructs';

export interface AlertsStackProps extends StackProps {
  readonly carhook: CarhookProps;
}

export class AlertsStack extends Stack {
  readonly carhook: Carhook;
  readonly alerts: Queue;
  readonly alertsRule: Rule;

  constructor(scope: Construct, id: string, props: AlertsStackProps) {
    super(scope, id, props);
    this.carhook = new Carhook(this, 'Carhook', props.carhook);

    const deadLetters = new Queue(this, 'AlertsDeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.alerts = new Queue(this, 'Alerts', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: 5 },
    });
    // Carhook publishes with Source = its event source and DetailType = the event type.
    this.alertsRule = new Rule(this, 'VehicleAlerts', {
      eventBus: this.carhook.eventBus,
      description: 'Carhook vehicle.alert.raised events to the alerts queue',
      eventPattern: {
        source: [this.carhook.config.eventSource],
        detailType: ['vehicle.alert.raised'],
      },
      targets: [new SqsQueue(this.alerts, { deadLetterQueue: deadLetters })],
    });
  }
}
