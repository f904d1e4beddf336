import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { CARHOOK_METRICS } from '../../lib/config';
import { CarhookMonitoring } from '../../lib/monitoring';
import { CarhookConfigError } from '../../lib/validation';
import { testApp } from './support';

const env = { account: '111111111111', region: 'eu-west-1' };
type Resource = { Type: string; Properties: Record<string, unknown> };

describe('CarhookMonitoring', () => {
  let stack: Stack;
  let template: Template;
  let monitoring: CarhookMonitoring;
  let dlq: Queue;
  let topicRef: unknown;

  beforeAll(() => {
    stack = new Stack(testApp(), 'Monitoring', { env });
    monitoring = new CarhookMonitoring(stack, 'Monitoring', { alarmEmail: 'ops@example.com' });
    dlq = new Queue(stack, 'PollJobsDlq', { enforceSSL: true });
    monitoring.addDeadLetterQueue('PollJobs', dlq);
    template = Template.fromStack(stack);
    topicRef = stack.resolve(monitoring.alarmTopic.topicArn);
  });

  const alarm = (construct: { node: { defaultChild?: unknown } }) =>
    template.toJSON().Resources[stack.getLogicalId(construct.node.defaultChild as never)] as Resource;

  it('creates an alarm topic encrypted with its own rotating key that CloudWatch may use', () => {
    template.resourceCountIs('AWS::SNS::Topic', 1);
    template.hasResourceProperties('AWS::SNS::Topic', {
      KmsMasterKeyId: stack.resolve(monitoring.topicKey?.keyArn),
    });
    template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Sid: 'AllowCloudWatchAlarmsToPublish',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
          }),
        ]),
      },
    });
  });

  it('denies every non-TLS request in the topic policy', () => {
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [topicRef],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Principal: '*',
            Action: 'sns:Publish',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            Resource: topicRef,
          }),
        ]),
      },
    });
  });

  it('subscribes the alarm e-mail address', () => {
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: topicRef,
    });
  });

  it('alarms on quota exhaustion from ApiRateLimited (429s) sustained for 15 minutes', () => {
    expect(alarm(monitoring.quotaExhaustedAlarm).Properties).toMatchObject({
      Namespace: 'Carhook',
      MetricName: CARHOOK_METRICS.apiRateLimited,
      Dimensions: [{ Name: 'service', Value: 'carhook' }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [topicRef],
      OKActions: [topicRef],
    });
  });

  it('alarms on a delivery failure rate above 10% computed from DeliveriesFailed and DeliveriesSucceeded', () => {
    const p = alarm(monitoring.deliveryFailureRateAlarm).Properties as {
      Metrics: Array<{
        Expression?: string;
        MetricStat?: { Metric: { MetricName: string; Namespace: string } };
      }>;
    };
    expect(p).toMatchObject({
      Threshold: 10,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 3,
    });
    expect(p.Metrics.find((m) => m.Expression)?.Expression).toBe('IF((s + f) > 0, 100 * f / (s + f), 0)');
    expect(p.Metrics.flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric.MetricName] : [])).sort()).toEqual([
      CARHOOK_METRICS.deliveriesFailed,
      CARHOOK_METRICS.deliveriesSucceeded,
    ]);
  });

  it('alarms as soon as an enrollment needs re-authorization', () => {
    expect(alarm(monitoring.reauthorizationRequiredAlarm).Properties).toMatchObject({
      MetricName: CARHOOK_METRICS.reauthorizationRequired,
      Threshold: 1,
      EvaluationPeriods: 1,
      AlarmActions: [topicRef],
    });
  });

  it('alarms on one message in a dead-letter queue added with addDeadLetterQueue', () => {
    const dlqAlarm = monitoring.deadLetterQueueAlarms.get('PollJobs');
    expect(dlqAlarm).toBeDefined();
    expect(alarm(dlqAlarm as never).Properties).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: stack.resolve(dlq.queueName) }],
      Statistic: 'Maximum',
      Period: 60,
      Threshold: 1,
      AlarmActions: [topicRef],
    });
    template.resourceCountIs('AWS::CloudWatch::Alarm', 4);
  });

  it('draws every runtime metric and the dead-letter queue on the dashboard', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    const body = JSON.stringify(template.findResources('AWS::CloudWatch::Dashboard'));
    for (const name of Object.values(CARHOOK_METRICS)) expect(body).toContain(name);
    expect(body).toContain('SEARCH(');
    expect(body).toContain('ApproximateNumberOfMessagesVisible');
    // The quota line of "requests vs quota".
    expect(body).toMatch(/"value\\":120/);
  });

  it('refuses a second alarm for the same dead-letter queue name, and names that are not alphanumeric', () => {
    expect(() => monitoring.addDeadLetterQueue('PollJobs', dlq)).toThrow(/'PollJobs' already has an alarm/);
    expect(() => monitoring.addDeadLetterQueue('poll jobs', dlq)).toThrow(/addDeadLetterQueue\(name\)/);
  });
});

describe('CarhookMonitoring options', () => {
  it('sends alarms to an existing topic and subscribes the e-mail address to it', () => {
    const stack = new Stack(testApp(), 'Existing', { env });
    const topic = Topic.fromTopicArn(stack, 'Ops', 'arn:aws:sns:eu-west-1:111111111111:ops');
    const monitoring = new CarhookMonitoring(stack, 'M', {
      existingAlarmTopic: topic,
      alarmEmail: 'ops@example.com',
    });
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::SNS::Topic', 0);
    template.resourceCountIs('AWS::KMS::Key', 0);
    expect(monitoring.createdAlarmTopic).toBeUndefined();
    template.hasResourceProperties('AWS::SNS::Subscription', {
      TopicArn: topic.topicArn,
      Endpoint: 'ops@example.com',
    });
    template.allResourcesProperties('AWS::CloudWatch::Alarm', { AlarmActions: [topic.topicArn] });
  });

  it('uses the service name and namespace given, so two deployments do not share alarms', () => {
    const stack = new Stack(testApp(), 'Named', { env });
    new CarhookMonitoring(stack, 'M', { serviceName: 'carhook-staging', metricsNamespace: 'CarhookStaging' });
    const alarms = Object.values(
      Template.fromStack(stack).findResources('AWS::CloudWatch::Alarm'),
    ) as Resource[];
    const metrics = alarms.flatMap((a) => {
      const p = a.Properties as {
        Namespace?: string;
        Dimensions?: unknown;
        Metrics?: Array<{ MetricStat?: { Metric: unknown } }>;
      };
      return p.Namespace
        ? [{ Namespace: p.Namespace, Dimensions: p.Dimensions }]
        : (p.Metrics ?? []).flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric] : []));
    });
    expect(metrics).toHaveLength(4);
    for (const m of metrics) {
      expect(m).toMatchObject({
        Namespace: 'CarhookStaging',
        Dimensions: [{ Name: 'service', Value: 'carhook-staging' }],
      });
    }
  });

  it('refuses an address that is not an e-mail and thresholds out of range, naming the prop', () => {
    const stack = () => new Stack(testApp(), 'Bad', { env });
    expect(() => new CarhookMonitoring(stack(), 'M', { alarmEmail: 'ops.example.com' })).toThrow(
      CarhookConfigError,
    );
    expect(() => new CarhookMonitoring(stack(), 'M', { alarmEmail: 'ops.example.com' })).toThrow(
      /`alarmEmail`/,
    );
    expect(
      () => new CarhookMonitoring(stack(), 'M', { thresholds: { deliveryFailureRatePercent: 0 } }),
    ).toThrow(/`thresholds\.deliveryFailureRatePercent` must be an integer from 1 to 100, got 0/);
    expect(
      () => new CarhookMonitoring(stack(), 'M', { thresholds: { rateLimitedPerFiveMinutes: 1.5 } }),
    ).toThrow(/`thresholds\.rateLimitedPerFiveMinutes`/);
  });
});
