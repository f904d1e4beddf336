import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type HorizontalAnnotation,
  type IMetric,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { CARHOOK_DEFAULTS, CARHOOK_METRICS, type CarhookMetricName } from './config';
import { CarhookConfigError, requireEmail, requireIntegerInRange } from './validation';

/** When the alarms fire. Defaults favour "a person should look" over paging on a single blip. */
export interface CarhookAlarmThresholds {
  /** Share of failed delivery attempts (percent) over 5 minutes, 3 periods in a row. @default 10 */
  readonly deliveryFailureRatePercent?: number;
  /** 429 answers per 5 minutes, 3 periods in a row: the shared budget is not holding. @default 1 */
  readonly rateLimitedPerFiveMinutes?: number;
}

export interface CarhookMonitoringProps {
  /** Subscribed to the alarm topic (a confirmation e-mail is sent on deploy). */
  readonly alarmEmail?: string;
  /**
   * Send alarms to this topic instead of creating one. With `alarmEmail` too, the address is
   * subscribed to this topic.
   */
  readonly existingAlarmTopic?: ITopic;
  /** @default 'Carhook' */
  readonly metricsNamespace?: string;
  /** The `service` dimension the runtime's metrics carry. @default 'carhook' */
  readonly serviceName?: string;
  /** Drawn on the "requests vs quota" graph. @default 120 per 60 s */
  readonly quota?: { readonly requests: number; readonly window: Duration };
  readonly thresholds?: CarhookAlarmThresholds;
  /** @default - generated */
  readonly dashboardName?: string;
}

const FIVE_MINUTES = Duration.minutes(5);

/**
 * Carhook's alarms and dashboard, built from the metrics the runtime emits (CARHOOK_METRICS).
 * Creates the SNS alarm topic (KMS-encrypted, TLS-only) unless one is given, the alarms that need
 * only metrics (quota exhaustion, delivery failure rate, re-authorization needed) and the
 * dashboard. Queues are added by the stateless part with `addDeadLetterQueue`.
 */
export class CarhookMonitoring extends Construct {
  readonly alarmTopic: ITopic;
  /** Set when this construct created the topic. */
  readonly createdAlarmTopic?: Topic;
  /** Encrypts the created topic; CloudWatch may use it to publish alarms. */
  readonly topicKey?: Key;
  readonly dashboard: Dashboard;
  readonly quotaExhaustedAlarm: Alarm;
  readonly deliveryFailureRateAlarm: Alarm;
  readonly reauthorizationRequiredAlarm: Alarm;
  /** DLQ depth alarms added with `addDeadLetterQueue`, by the name given. */
  readonly deadLetterQueueAlarms = new Map<string, Alarm>();
  readonly metricsNamespace: string;
  readonly serviceName: string;
  private readonly dlqWidget: GraphWidget;

  constructor(scope: Construct, id: string, props: CarhookMonitoringProps = {}) {
    super(scope, id);
    this.metricsNamespace = props.metricsNamespace ?? CARHOOK_DEFAULTS.metricsNamespace;
    this.serviceName = props.serviceName ?? CARHOOK_DEFAULTS.serviceName;
    if (props.alarmEmail !== undefined) requireEmail('alarmEmail', props.alarmEmail);
    const failureRate =
      props.thresholds?.deliveryFailureRatePercent ?? CARHOOK_DEFAULTS.alarms.deliveryFailureRatePercent;
    const rateLimited =
      props.thresholds?.rateLimitedPerFiveMinutes ?? CARHOOK_DEFAULTS.alarms.rateLimitedPerFiveMinutes;
    requireIntegerInRange('thresholds.deliveryFailureRatePercent', failureRate, 1, 100);
    requireIntegerInRange('thresholds.rateLimitedPerFiveMinutes', rateLimited, 1, 100_000);
    const quota = props.quota ?? CARHOOK_DEFAULTS.quota;

    if (props.existingAlarmTopic) {
      this.alarmTopic = props.existingAlarmTopic;
    } else {
      this.topicKey = new Key(this, 'TopicKey', {
        description: 'Carhook alarm topic',
        enableKeyRotation: true,
        // Protects no stored data: SNS does not keep messages once delivered.
        removalPolicy: RemovalPolicy.DESTROY,
        pendingWindow: Duration.days(7),
      });
      // CloudWatch publishes alarm notifications to an encrypted topic only if the key lets it
      // (AWS managed alias/aws/sns does not), hence a customer key with this statement.
      this.topicKey.addToResourcePolicy(
        new PolicyStatement({
          sid: 'AllowCloudWatchAlarmsToPublish',
          principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
          actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
          resources: ['*'],
        }),
      );
      this.createdAlarmTopic = new Topic(this, 'AlarmTopic', {
        displayName: 'Carhook alarms',
        masterKey: this.topicKey,
        enforceSSL: true,
      });
      this.alarmTopic = this.createdAlarmTopic;
    }
    if (props.alarmEmail !== undefined) {
      this.alarmTopic.addSubscription(new EmailSubscription(props.alarmEmail));
    }

    const rateLimitedMetric = this.metric(CARHOOK_METRICS.apiRateLimited, 'Sum', FIVE_MINUTES);
    this.quotaExhaustedAlarm = this.addAlarm('QuotaExhausted', {
      metric: rateLimitedMetric,
      threshold: rateLimited,
      evaluationPeriods: 3,
      description: `The API answered 429 (rate limited) at least ${rateLimited} time(s) per 5 minutes for 15 minutes: the shared token bucket is not holding (another consumer of the client_id, or a quota lower than configured).`,
    });

    const failed = this.metric(CARHOOK_METRICS.deliveriesFailed, 'Sum', FIVE_MINUTES);
    const succeeded = this.metric(CARHOOK_METRICS.deliveriesSucceeded, 'Sum', FIVE_MINUTES);
    const failureRateMetric = new MathExpression({
      expression: 'IF((s + f) > 0, 100 * f / (s + f), 0)',
      usingMetrics: { s: succeeded, f: failed },
      period: FIVE_MINUTES,
      label: 'Delivery failure rate (%)',
    });
    this.deliveryFailureRateAlarm = this.addAlarm('DeliveryFailureRate', {
      metric: failureRateMetric,
      threshold: failureRate,
      evaluationPeriods: 3,
      description: `More than ${failureRate}% of webhook delivery attempts failed for 15 minutes.`,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });

    this.reauthorizationRequiredAlarm = this.addAlarm('ReauthorizationRequired', {
      metric: this.metric(CARHOOK_METRICS.reauthorizationRequired, 'Sum', FIVE_MINUTES),
      threshold: 1,
      evaluationPeriods: 1,
      description:
        'An enrollment lost its authorization (invalid_grant): its vehicles are paused until the user enrolls again. The event enrollment.reauthorization_required names it.',
    });

    this.dlqWidget = new GraphWidget({ title: 'Dead-letter queues (messages)', left: [], width: 8 });
    this.dashboard = new Dashboard(this, 'Dashboard', {
      ...(props.dashboardName === undefined ? {} : { dashboardName: props.dashboardName }),
      defaultInterval: Duration.hours(6),
    });
    this.dashboard.addWidgets(
      new TextWidget({
        markdown: `# Carhook\nMetrics of namespace \`${this.metricsNamespace}\`, service \`${this.serviceName}\`.`,
        width: 24,
        height: 1,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Polls completed',
        left: [this.metric(CARHOOK_METRICS.pollsCompleted, 'Sum', Duration.minutes(1))],
        width: 8,
      }),
      new GraphWidget({
        title: `API requests vs quota (per ${quota.window.toHumanString()})`,
        left: [this.metric(CARHOOK_METRICS.apiRequests, 'Sum', quota.window)],
        leftAnnotations: [
          { value: quota.requests, label: 'quota', color: '#d62728' } satisfies HorizontalAnnotation,
        ],
        right: [this.metric(CARHOOK_METRICS.quotaRemaining, 'Minimum', quota.window)],
        width: 8,
      }),
      new GraphWidget({
        title: '429 Too Many Requests',
        left: [this.metric(CARHOOK_METRICS.apiRateLimited, 'Sum', Duration.minutes(1))],
        width: 8,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Detection lag (ms)',
        left: ['p50', 'p90', 'Maximum'].map((stat) =>
          this.metric(CARHOOK_METRICS.detectionLagMs, stat, Duration.minutes(5)),
        ),
        // Records older than the vehicle's enrollment, told as history (`data.initial`): not a lag.
        right: [this.metric(CARHOOK_METRICS.historyFound, 'Sum', Duration.minutes(5))],
        width: 8,
      }),
      new GraphWidget({
        title: 'Events published per type',
        // One line per `type` dimension value, whatever types the runtime publishes.
        left: [
          new MathExpression({
            expression: `SEARCH('{${this.metricsNamespace},service,type} MetricName="${CARHOOK_METRICS.eventsPublished}" service="${this.serviceName}"', 'Sum', 300)`,
            label: '',
            period: FIVE_MINUTES,
          }),
        ],
        width: 8,
      }),
      new GraphWidget({
        title: 'Webhook deliveries',
        left: [succeeded, failed],
        right: [failureRateMetric],
        width: 8,
      }),
    );
    this.dashboard.addWidgets(
      this.dlqWidget,
      new GraphWidget({
        title: 'Enrollments needing re-authorization',
        left: [this.metric(CARHOOK_METRICS.reauthorizationRequired, 'Sum', FIVE_MINUTES)],
        width: 8,
      }),
      new GraphWidget({
        // Answers older than what was already applied (a cache before the API): they fixed nothing.
        title: 'Stale API answers',
        left: [this.metric(CARHOOK_METRICS.staleAnswers, 'Sum', FIVE_MINUTES)],
        width: 8,
      }),
    );
  }

  /** A runtime metric of this deployment (namespace + `service` dimension). */
  metric(
    name: CarhookMetricName,
    statistic: string,
    period: Duration,
    dimensions: Record<string, string> = {},
  ): Metric {
    return new Metric({
      namespace: this.metricsNamespace,
      metricName: name,
      dimensionsMap: { service: this.serviceName, ...dimensions },
      statistic,
      period,
    });
  }

  /**
   * Alarm (to the alarm topic) as soon as one message sits in the dead-letter queue, and a line on
   * the dashboard. `name` identifies the queue in the alarm name and the graph.
   */
  addDeadLetterQueue(name: string, queue: IQueue): Alarm {
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name)) {
      throw new CarhookConfigError(
        'addDeadLetterQueue(name)',
        `must be alphanumeric, starting with a letter, got '${name}'`,
      );
    }
    if (this.deadLetterQueueAlarms.has(name)) {
      throw new CarhookConfigError('addDeadLetterQueue(name)', `'${name}' already has an alarm`);
    }
    const depth = queue.metricApproximateNumberOfMessagesVisible({
      period: Duration.minutes(1),
      statistic: 'Maximum',
    });
    const alarm = this.addAlarm(`${name}DeadLetters`, {
      metric: depth,
      threshold: 1,
      evaluationPeriods: 1,
      description: `Messages in the ${name} dead-letter queue: they exhausted their retries. Inspect, fix, then redrive.`,
    });
    this.deadLetterQueueAlarms.set(name, alarm);
    // The label only on the graph: on the alarm it would turn the metric into a metric-math array.
    this.dlqWidget.addLeftMetric(depth.with({ label: name }));
    return alarm;
  }

  private addAlarm(
    id: string,
    opts: {
      metric: IMetric;
      threshold: number;
      evaluationPeriods: number;
      description: string;
      comparison?: ComparisonOperator;
    },
  ): Alarm {
    const alarm = new Alarm(this, id, {
      metric: opts.metric,
      threshold: opts.threshold,
      evaluationPeriods: opts.evaluationPeriods,
      datapointsToAlarm: opts.evaluationPeriods,
      comparisonOperator: opts.comparison ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      // No data means nothing happened (no 429s, no deliveries), not a failure.
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: opts.description,
    });
    const action = new SnsAction(this.alarmTopic);
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
    return alarm;
  }
}
