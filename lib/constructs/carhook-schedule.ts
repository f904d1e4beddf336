import { type Duration, Stack } from 'aws-cdk-lib';
import { type IRole, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { CARHOOK_DEFAULTS } from '../config';
import { requireWholeDuration } from '../validation';

export interface CarhookScheduleProps {
  /** The function invoked on every tick. */
  readonly target: IFunction;
  /** `rate(...)` in whole minutes (Scheduler's shortest rate is one minute, aws-facts). */
  readonly rate: Duration;
  /** Invocations that failed every retry go here (the role may send to it). */
  readonly deadLetterQueue: IQueue;
  readonly description: string;
}

/**
 * LambdaInvoke grants through `grantInvoke`, which also allows every version and alias
 * (`<arn>:*`): this target allows exactly the function it invokes.
 */
class InvokeExactly extends LambdaInvoke {
  constructor(
    private readonly fn: IFunction,
    props: ConstructorParameters<typeof LambdaInvoke>[1],
  ) {
    super(fn, props);
  }

  protected override addTargetActionToRole(role: IRole): void {
    role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.fn.functionArn] }),
    );
  }
}

/**
 * An EventBridge Scheduler schedule that invokes one function at a fixed rate, with its own role
 * (assumable by Scheduler for this account only; it may invoke that function and send to the
 * dead-letter queue, nothing else), a retry policy and a dead-letter queue.
 */
export class CarhookSchedule extends Construct {
  readonly schedule: Schedule;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: CarhookScheduleProps) {
    super(scope, id);
    requireWholeDuration(`${id}.rate`, props.rate, 'minutes', 1, 1440);
    this.role = new Role(this, 'Role', {
      // Confused-deputy guard: only schedules of this account can use the role.
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description: `Invokes ${props.description}`,
    });
    this.schedule = new Schedule(this, 'Schedule', {
      schedule: ScheduleExpression.rate(props.rate),
      description: props.description,
      target: new InvokeExactly(props.target, {
        role: this.role,
        deadLetterQueue: props.deadLetterQueue,
        retryAttempts: CARHOOK_DEFAULTS.scheduleRetry.attempts,
        // A tick that cannot run within this is stale: the next tick plans afresh.
        maxEventAge: CARHOOK_DEFAULTS.scheduleRetry.maxEventAge,
      }),
    });
  }
}
