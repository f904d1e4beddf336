import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { Carhook, type CarhookProps } from './carhook';
import { CarhookConfigError } from './validation';

export interface CarhookStackProps extends StackProps {
  readonly carhook: CarhookProps;
  /** Alarms go to this existing topic (imported here, where the alarms are). */
  readonly existingAlarmTopicArn?: string;
}

/**
 * The stateless stack of the ready app: one `Carhook` construct, given `data` from a
 * CarhookDataStack. Redeploying or destroying it never touches the table, bus or secrets.
 */
export class CarhookStack extends Stack {
  readonly carhook: Carhook;

  constructor(scope: Construct, id: string, props: CarhookStackProps) {
    super(scope, id, props);
    if (props.existingAlarmTopicArn !== undefined && props.carhook.existingAlarmTopic !== undefined) {
      throw new CarhookConfigError(
        'existingAlarmTopicArn',
        'and carhook.existingAlarmTopic name the same thing: give one',
      );
    }
    const existingAlarmTopic =
      props.existingAlarmTopicArn === undefined
        ? props.carhook.existingAlarmTopic
        : Topic.fromTopicArn(this, 'ExistingAlarmTopic', props.existingAlarmTopicArn);
    this.carhook = new Carhook(this, 'Carhook', {
      ...props.carhook,
      ...(existingAlarmTopic ? { existingAlarmTopic } : {}),
    });
    new CfnOutput(this, 'ApiUrl', {
      value: this.carhook.httpApi.url,
      description: 'Base URL of the HTTP API: enroll users at <ApiUrl>oauth/<brand>/authorize',
    });
    new CfnOutput(this, 'EventBusName', { value: this.carhook.data.eventBus.eventBusName });
    new CfnOutput(this, 'TableName', { value: this.carhook.data.table.tableName });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.carhook.monitoring.alarmTopic.topicArn });
    new CfnOutput(this, 'DashboardName', { value: this.carhook.monitoring.dashboard.dashboardName });
  }
}
