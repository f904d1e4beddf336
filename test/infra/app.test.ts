import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type App, Stack, Validations } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { APP_CONTEXT_DEFAULTS, buildCarhookApp, readAppSettings } from '../../lib/app';
import { REPO_ROOT } from '../../lib/paths';
import { CarhookConfigError } from '../../lib/validation';
import { acknowledgements, allStatements, testApp, XRAY_ACTIONS } from './support';

const region = { region: 'eu-west-1' };
const settings = (context: Record<string, unknown> = {}) => readAppSettings((key) => context[key]);
const configured = {
  apiBaseUrl: 'https://api.example.net',
  authUrl: 'https://id.example.net',
  brands: 'cielo,pavo',
};

describe('readAppSettings (CDK context)', () => {
  it('falls back to the documented defaults and reports which keys are placeholders', () => {
    const s = settings();
    expect(s).toMatchObject({
      stackName: 'Carhook',
      apiBaseUrl: APP_CONTEXT_DEFAULTS.apiBaseUrl,
      authUrl: APP_CONTEXT_DEFAULTS.authUrl,
      brands: ['cielo', 'pavo'],
      eventSource: 'carhook',
      eventLogRetentionDays: 30,
      pollIntervalMinutes: 1,
      quotaRequests: 120,
      quotaWindowSeconds: 60,
      maintenanceDueDays: 30,
      maintenanceDueKm: 1000,
      removalPolicy: 'retain',
      logLevel: 'INFO',
    });
    expect(s.placeholders).toEqual(['apiBaseUrl', 'authUrl', 'brands']);
    expect(settings(configured).placeholders).toEqual([]);
  });

  it('reads numbers given as -c strings or cdk.json numbers, and trims lists', () => {
    const s = settings({
      quotaRequests: '600',
      pollIntervalMinutes: 5,
      brands: ' cielo , pavo ,',
      logLevel: 'debug',
    });
    expect(s.quotaRequests).toBe(600);
    expect(s.pollIntervalMinutes).toBe(5);
    expect(s.brands).toEqual(['cielo', 'pavo']);
    expect(s.logLevel).toBe('DEBUG');
    expect(settings({ brands: ['cielo', 'pavo'] }).brands).toEqual(['cielo', 'pavo']);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    [
      'a number that is not whole',
      { quotaRequests: '12.5' },
      /`context quotaRequests` must be a whole number, got "12\.5"/,
    ],
    ['a word for a number', { eventLogRetentionDays: 'thirty' }, /`context eventLogRetentionDays`/],
    [
      'an unknown removal policy',
      { removalPolicy: 'delete' },
      /`context removalPolicy` must be 'retain' or 'destroy'/,
    ],
    ['an unknown log level', { logLevel: 'verbose' }, /`context logLevel`/],
    [
      'a bus by ARN and by name',
      { eventBusArn: 'arn:aws:events:eu-west-1:1:event-bus/a', eventBusName: 'a' },
      /`context eventBusArn`/,
    ],
    ['a stack name CloudFormation refuses', { stackName: '1carhook' }, /`context stackName`/],
    ['a non-string URL', { apiBaseUrl: 42 }, /`context apiBaseUrl` must be a string/],
    [
      'an unknown retry schedule',
      { retrySchedule: 'quick' },
      /`context retrySchedule` must be one of standard, fast, got 'quick'/,
    ],
  ])('refuses %s, naming the context key', (_what, context, message) => {
    expect(() => settings(context)).toThrow(CarhookConfigError);
    expect(() => settings(context)).toThrow(message);
  });
});

describe('buildCarhookApp (bin/app.ts)', () => {
  it('creates the stateful stack <name>-Data and the stateless stack <name>, in that order', () => {
    const app = testApp();
    const { dataStack, stack } = buildCarhookApp(app, settings(configured), region);
    expect(dataStack.stackName).toBe('Carhook-Data');
    expect(stack.stackName).toBe('Carhook');
    expect(stack.carhook.data).toBe(dataStack.data);
    expect(stack.dependencies).toContain(dataStack);
    const other = buildCarhookApp(
      testApp(),
      settings({ ...configured, stackName: 'CarhookStaging' }),
      region,
    );
    expect([other.dataStack.stackName, other.stack.stackName]).toEqual([
      'CarhookStaging-Data',
      'CarhookStaging',
    ]);
  });

  it('warns at synth about each placeholder, and not when everything is set', () => {
    const { stack } = buildCarhookApp(testApp(), settings(), region);
    for (const key of ['apiBaseUrl', 'authUrl', 'brands']) {
      Annotations.fromStack(stack).hasWarning('*', Match.stringLikeRegexp(`Context '${key}' is not set`));
    }
    const clean = buildCarhookApp(testApp(), settings(configured), region);
    expect(
      Annotations.fromStack(clean.stack).findWarning('*', Match.stringLikeRegexp('placeholder')),
    ).toEqual([]);
    // Two synths with bundling: slow on a loaded machine (nothing here is timed).
  }, 90_000);

  it('maps context to the stacks: destroy, existing bus, existing alarm topic', () => {
    const { dataStack, stack } = buildCarhookApp(
      testApp(),
      settings({
        ...configured,
        removalPolicy: 'destroy',
        eventBusName: 'central',
        alarmTopicArn: 'arn:aws:sns:eu-west-1:111111111111:ops',
        archiveRetentionDays: '7',
      }),
      region,
    );
    const data = Template.fromStack(dataStack);
    data.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Delete' });
    data.resourceCountIs('AWS::Events::EventBus', 0);
    data.hasResourceProperties('AWS::Events::Archive', { RetentionDays: 7 });
    expect(dataStack.terminationProtection).toBe(false);
    const stateless = Template.fromStack(stack);
    stateless.resourceCountIs('AWS::SNS::Topic', 0);
    stateless.allResourcesProperties('AWS::CloudWatch::Alarm', {
      AlarmActions: ['arn:aws:sns:eu-west-1:111111111111:ops'],
    });
  });

  it('traces every function by default, and none with -c tracing=false (no X-Ray grant either)', () => {
    const functionsOf = (context: Record<string, unknown>) => {
      const { stack } = buildCarhookApp(testApp(), settings({ ...configured, ...context }), region);
      const template = Template.fromStack(stack);
      return {
        tracing: Object.values(template.findResources('AWS::Lambda::Function')).map(
          (f) => (f.Properties.TracingConfig as { Mode?: string } | undefined)?.Mode,
        ),
        xray: JSON.stringify(template.findResources('AWS::IAM::Policy')).includes('xray:PutTraceSegments'),
      };
    };
    const on = functionsOf({});
    expect(on.tracing).toHaveLength(7);
    expect(on.tracing.every((m) => m === 'Active')).toBe(true);
    expect(on.xray).toBe(true);
    const off = functionsOf({ tracing: 'false' });
    expect(off.tracing.every((m) => m === undefined || m === 'PassThrough')).toBe(true);
    expect(off.xray).toBe(false);
    expect(() => settings({ tracing: 'maybe' })).toThrow(
      /`context tracing` must be true or false, got "maybe"/,
    );
  });

  it('gives every function the retry schedule -c retrySchedule names, and none without it', () => {
    const retryOf = (context: Record<string, unknown>) => {
      const { stack } = buildCarhookApp(testApp(), settings({ ...configured, ...context }), region);
      const fns = Template.fromStack(stack).findResources('AWS::Lambda::Function');
      return Object.values(fns).map(
        (f) =>
          (f.Properties.Environment?.Variables as Record<string, unknown> | undefined)
            ?.CARHOOK_RETRY_SCHEDULE,
      );
    };
    const fast = retryOf({ retrySchedule: 'fast' });
    // The console authorizer reads no runtime setting; the six others all get it.
    expect(fast.filter((v) => v === 'fast')).toHaveLength(6);
    expect(fast.filter((v) => v !== 'fast')).toEqual([undefined]);
    expect(retryOf({}).every((v) => v === undefined)).toBe(true);
  });

  it('outputs the alarm topic and dashboard of the stateless stack', () => {
    const { stack } = buildCarhookApp(testApp(), settings(configured), region);
    const template = Template.fromStack(stack);
    template.hasOutput('AlarmTopicArn', {
      Value: stack.resolve(stack.carhook.monitoring.alarmTopic.topicArn),
    });
    template.hasOutput('DashboardName', {
      Value: stack.resolve(stack.carhook.monitoring.dashboard.dashboardName),
    });
  });

  it('stops on a configuration the Carhook construct refuses', () => {
    expect(() =>
      buildCarhookApp(testApp(), settings({ ...configured, apiBaseUrl: 'http://api.example.net' }), region),
    ).toThrow(/`apiBaseUrl` must use https/);
  });

  it('names the region when there is none (no CLI defaults, no -c region)', () => {
    expect(() => buildCarhookApp(testApp(), settings(configured), {})).toThrow(/`env\.region`/);
  });

  it('cdk.json runs the app with tsx, as the synth command expects', () => {
    const cdkJson = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as { app: string };
    expect(cdkJson.app).toBe('npx tsx bin/app.ts');
  });
});

/** Synthesizes with cdk-nag's AwsSolutions pack; returns the violations it reported (none = success). */
function nagViolations(app: App): string[] {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  try {
    app.synth();
    return [];
  } catch (error) {
    if (!String(error).includes('ValidationFailed')) throw error;
    const report = JSON.parse(readFileSync(join(app.outdir, 'validation-report.json'), 'utf8')) as {
      pluginReports: Array<{
        pluginName: string;
        violations: Array<{ ruleName: string; violatingConstructs?: Array<{ constructPath: string }> }>;
      }>;
    };
    const found = report.pluginReports.flatMap((r) =>
      r.violations.map(
        (v) => `${v.ruleName} @ ${(v.violatingConstructs ?? []).map((c) => c.constructPath).join(', ')}`,
      ),
    );
    if (found.length === 0) throw error;
    return found;
  }
}

describe('cdk-nag AwsSolutionsChecks', () => {
  let appViolations: string[];
  let stateless: Template;
  let statelessStack: Stack;

  beforeAll(() => {
    // The ready app, stateless part included (templates only: bundling is tested in bundles.test.ts).
    const app = testApp();
    const { stack } = buildCarhookApp(
      app,
      settings({ ...configured, alarmEmail: 'ops@example.com' }),
      region,
    );
    appViolations = nagViolations(app);
    stateless = Template.fromStack(stack);
    statelessStack = stack;
  });

  it('finds nothing unacknowledged in the ready app (data and stateless stacks)', () => {
    expect(appViolations).toEqual([]);
  });

  it('acknowledges Resource "*" only where X-Ray needs it; wildcard actions only the KMS ones of the CDK key grants; no index/*', () => {
    const statements = allStatements(stateless);
    expect(statements.length).toBeGreaterThan(0);
    for (const s of statements) {
      for (const action of s.Action.filter((a) => a.includes('*'))) {
        expect(['kms:GenerateDataKey*', 'kms:ReEncrypt*'], s.policy).toContain(action);
        // …and only on one key, never on "*".
        expect(s.Resource, s.policy).not.toContain('*');
      }
      if (s.Resource.includes('*')) expect([...s.Action].sort(), s.policy).toEqual([...XRAY_ACTIONS].sort());
      expect(JSON.stringify(s.Resource), s.policy).not.toContain('/index/*');
      // No `<function arn>:*` (all versions and aliases) either.
      expect(JSON.stringify(s.Resource), s.policy).not.toMatch(/":\*"/);
    }
  });

  it('acknowledges exactly the expected findings, each with a reason', () => {
    const acknowledged = acknowledgements(statelessStack);
    expect([...new Set(acknowledged.map((a) => a.id))].sort()).toEqual([
      'AwsSolutions-APIG4',
      'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
      'AwsSolutions-IAM5[Action::kms:ReEncrypt*]',
      'AwsSolutions-IAM5[Resource::*]',
      'AwsSolutions-L1',
      'AwsSolutions-SQS3',
    ]);
    for (const a of acknowledged) expect(a.reason.length, a.id).toBeGreaterThan(40);
    // APIG4 (no authorization) only on the eight public routes: health, the OpenAPI document, OAuth,
    // the console's page, assets and icon.
    expect(acknowledged.filter((a) => a.id === 'AwsSolutions-APIG4')).toHaveLength(8);
  });

  it('does run: an unacknowledged finding fails synthesis (control)', () => {
    const app = testApp();
    new Secret(new Stack(app, 'Control', { env: region }), 'Unrotated');
    expect(nagViolations(app)).toEqual([expect.stringMatching(/AwsSolutions-SMG4 @ Control\/Unrotated/)]);
  });
});
