import { CfnParameter, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { describe, expect, it } from 'vitest';
import {
  Carhook,
  type CarhookProps,
  carhookRuntimeEnvironment,
  resolveCarhookConfig,
} from '../../lib/carhook';
import { CarhookData } from '../../lib/constructs/carhook-data';
import { CarhookConfigError } from '../../lib/validation';
import { FIXTURE_HANDLER, testApp } from './support';

const env = { account: '111111111111', region: 'eu-west-1' };
const required: CarhookProps = {
  apiBaseUrl: 'https://api.example.net',
  authUrl: 'https://id.example.net',
  brands: ['cielo'],
};
// Functions in these tests are not bundled: the house function's bundling is tested in its own file.
const noBundling = () => testApp({ 'aws:cdk:bundling-stacks': [] });

describe('resolveCarhookConfig (defaults in one place)', () => {
  it('applies the documented defaults', () => {
    const config = resolveCarhookConfig(required);
    expect(config.quota.requests).toBe(120);
    expect(config.quota.window.toSeconds()).toBe(60);
    expect(config.pollInterval.toMinutes()).toBe(1);
    expect(config.maintenanceDueThreshold).toEqual({ days: 30, distanceKm: 1000 });
    expect(config.eventSource).toBe('carhook');
    expect(config.eventLogRetention.toDays()).toBe(30);
    expect(config.serviceName).toBe('carhook');
    expect(config.metricsNamespace).toBe('Carhook');
    expect(config.logLevel).toBe('INFO');
  });

  it('keeps a partial maintenance threshold and fills the other half', () => {
    expect(
      resolveCarhookConfig({ ...required, maintenanceDueThreshold: { days: 14 } }).maintenanceDueThreshold,
    ).toEqual({
      days: 14,
      distanceKm: 1000,
    });
  });

  it('turns the configuration into the runtime environment variables', () => {
    const config = resolveCarhookConfig({
      ...required,
      brands: ['cielo', 'pavo'],
      quota: { requests: 600, window: Duration.minutes(1) },
      pollInterval: Duration.minutes(5),
      eventLogRetention: Duration.days(7),
    });
    expect(carhookRuntimeEnvironment(config)).toEqual({
      CARHOOK_API_BASE_URL: 'https://api.example.net',
      CARHOOK_AUTH_URL: 'https://id.example.net',
      CARHOOK_BRANDS: 'cielo,pavo',
      CARHOOK_QUOTA_REQUESTS: '600',
      CARHOOK_QUOTA_WINDOW_SECONDS: '60',
      CARHOOK_POLL_INTERVAL_SECONDS: '300',
      CARHOOK_POLL_STRATEGY: 'carhook',
      CARHOOK_MAINTENANCE_DUE_DAYS: '30',
      CARHOOK_MAINTENANCE_DUE_KM: '1000',
      CARHOOK_EVENT_LOG_RETENTION_DAYS: '7',
    });
  });

  it('passes the services and map cadences and the retry schedule only when set, checked at synth', () => {
    const config = resolveCarhookConfig({
      ...required,
      servicesInterval: Duration.minutes(15),
      mapInterval: Duration.hours(2),
      retrySchedule: 'fast',
    });
    expect(carhookRuntimeEnvironment(config)).toMatchObject({
      CARHOOK_SERVICES_INTERVAL_SECONDS: '900',
      CARHOOK_MAP_INTERVAL_SECONDS: '7200',
      CARHOOK_RETRY_SCHEDULE: 'fast',
    });
    expect(() => resolveCarhookConfig({ ...required, retrySchedule: 'slow' as unknown as 'fast' })).toThrow(
      /retrySchedule/,
    );
    expect(() => resolveCarhookConfig({ ...required, mapInterval: Duration.millis(1500) })).toThrow(
      /mapInterval/,
    );
  });

  it('passes the webhook allow-list and the OAuth redirect origins to the runtime, checked at synth', () => {
    const config = resolveCarhookConfig({
      ...required,
      webhookAllowHosts: ['10.0.0.0/8', 'hooks.internal'],
      oauthRedirectOrigins: ['https://console.example.com/any/path'],
    });
    expect(carhookRuntimeEnvironment(config)).toMatchObject({
      CARHOOK_WEBHOOK_ALLOW_HOSTS: '10.0.0.0/8,hooks.internal',
      CARHOOK_OAUTH_REDIRECT_ORIGINS: 'https://console.example.com',
    });
    expect(() => resolveCarhookConfig({ ...required, webhookAllowHosts: ['10.0.0.0/99'] })).toThrow(
      /webhookAllowHosts/,
    );
    expect(() =>
      resolveCarhookConfig({ ...required, oauthRedirectOrigins: ['http://console.example.com'] }),
    ).toThrow(/oauthRedirectOrigins\[0\]/);
  });

  it.each<[string, Partial<CarhookProps>, RegExp]>([
    ['an http API URL', { apiBaseUrl: 'http://api.example.net' }, /`apiBaseUrl` must use https/],
    ['a relative API URL', { apiBaseUrl: 'api.example.net' }, /`apiBaseUrl` must be an absolute URL/],
    [
      'an auth URL with a query',
      { authUrl: 'https://id.example.net/?x=1' },
      /`authUrl` must not carry a query/,
    ],
    ['no brand', { brands: [] }, /`brands` must list at least one/],
    [
      'a brand that is not a path segment',
      { brands: ['cielo/fr'] },
      /`brands\[0\]` must be a URL path segment/,
    ],
    ['a brand twice', { brands: ['cielo', 'pavo', 'cielo'] }, /`brands` lists 'cielo' twice/],
    [
      'a zero quota',
      { quota: { requests: 0, window: Duration.seconds(60) } },
      /`quota\.requests` must be an integer/,
    ],
    ['a fractional quota', { quota: { requests: 1.5, window: Duration.seconds(60) } }, /`quota\.requests`/],
    [
      'a sub-second quota window',
      { quota: { requests: 10, window: Duration.millis(1500) } },
      /`quota\.window` must be a whole number of seconds/,
    ],
    [
      'a poll interval below a minute',
      { pollInterval: Duration.seconds(30) },
      /`pollInterval` must be a whole number of minutes from 1 to 1440/,
    ],
    ['a poll interval above a day', { pollInterval: Duration.days(2) }, /`pollInterval`/],
    [
      'a zero-day maintenance threshold',
      { maintenanceDueThreshold: { days: 0 } },
      /`maintenanceDueThreshold\.days`/,
    ],
    [
      'a negative distance threshold',
      { maintenanceDueThreshold: { distanceKm: -5 } },
      /`maintenanceDueThreshold\.distanceKm`/,
    ],
    ['a reserved event source', { eventSource: 'aws.events' }, /`eventSource`.*not starting with 'aws\.'/],
    [
      'a retention in hours',
      { eventLogRetention: Duration.hours(12) },
      /`eventLogRetention` must be a whole number of days/,
    ],
    ['a service name with a space', { serviceName: 'car hook' }, /`serviceName`/],
    [
      'an unknown log level',
      { logLevel: 'TRACE' as never },
      /`logLevel` must be one of DEBUG, INFO, WARN, ERROR/,
    ],
  ])('refuses %s, naming the prop', (_what, override, message) => {
    expect(() => resolveCarhookConfig({ ...required, ...override })).toThrow(CarhookConfigError);
    expect(() => resolveCarhookConfig({ ...required, ...override })).toThrow(message);
  });

  it('lets unresolved tokens (CloudFormation parameters) through to deploy time', () => {
    const stack = new Stack(testApp(), 'Params', { env });
    const url = new CfnParameter(stack, 'ApiBaseUrl').valueAsString;
    expect(resolveCarhookConfig({ ...required, apiBaseUrl: url }).apiBaseUrl).toBe(url);
  });
});

describe('Carhook prop combinations with `data`', () => {
  const dataIn = (region = env.region) =>
    new CarhookData(new Stack(testApp(), `D${region}`, { env: { ...env, region } }), 'Data');

  it.each<[keyof CarhookProps, (stack: Stack) => Partial<CarhookProps>]>([
    ['existingEventBus', (stack) => ({ existingEventBus: EventBus.fromEventBusName(stack, 'B', 'central') })],
    ['archiveRetention', () => ({ archiveRetention: Duration.days(7) })],
    ['removalPolicy', () => ({ removalPolicy: RemovalPolicy.DESTROY })],
  ])('refuses %s next to data (it belongs to CarhookData)', (prop, extra) => {
    const data = dataIn();
    const stack = new Stack(data.node.root as never, 'Stateless', { env });
    expect(() => new Carhook(stack, 'Carhook', { ...required, data, ...extra(stack) })).toThrow(
      new RegExp(`\`${prop}\` cannot be combined with \`data\``),
    );
  });

  it('refuses an event source that differs from the one data archives', () => {
    const data = dataIn();
    const stack = new Stack(data.node.root as never, 'Stateless', { env });
    expect(() => new Carhook(stack, 'Carhook', { ...required, data, eventSource: 'other' })).toThrow(
      /`eventSource` is 'other' but `data` archives and names schemas for 'carhook'/,
    );
  });

  it('refuses data from another region', () => {
    const data = dataIn('us-east-1');
    const stack = new Stack(data.node.root as never, 'Stateless', { env });
    expect(() => new Carhook(stack, 'Carhook', { ...required, data })).toThrow(
      /`data` is in region us-east-1 but Carhook is in region eu-west-1/,
    );
  });

  it('takes the event source from data when it is not given', () => {
    const app = testApp();
    const data = new CarhookData(new Stack(app, 'D', { env }), 'Data', { eventSource: 'acme.carhook' });
    const carhook = new Carhook(new Stack(app, 'S', { env }), 'Carhook', { ...required, data });
    expect(carhook.config.eventSource).toBe('acme.carhook');
    expect(carhook.data).toBe(data);
  });
});

describe('Carhook composition', () => {
  // A whole synthesis (about 10 s alone; more on a shared machine).
  it('in one stack: creates the stateful resources, the monitoring and the stateless part', {
    timeout: 90_000,
  }, () => {
    const stack = new Stack(testApp(), 'One', { env });
    const carhook = new Carhook(stack, 'Carhook', {
      ...required,
      eventLogRetention: Duration.days(14),
      alarmEmail: 'ops@example.com',
    });
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
    template.resourceCountIs('AWS::Events::EventBus', 1);
    // The archive follows the event log retention unless told otherwise.
    template.hasResourceProperties('AWS::Events::Archive', { RetentionDays: 14 });
    template.resourceCountIs('AWS::SNS::Topic', 1);
    // 3 metric alarms + one per dead-letter queue (poll jobs, fan-out, deliveries, schedules).
    template.resourceCountIs('AWS::CloudWatch::Alarm', 7);
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    template.resourceCountIs('AWS::Lambda::Function', 7); // six handlers and the console authorizer
    template.resourceCountIs('AWS::SQS::Queue', 7);
    template.resourceCountIs('AWS::Scheduler::Schedule', 2);
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    expect(carhook.data.eventSource).toBe('carhook');
  });

  it('passes removal policy, existing bus and archive retention to the data it creates', () => {
    const stack = new Stack(testApp(), 'Dev', { env });
    new Carhook(stack, 'Carhook', {
      ...required,
      removalPolicy: RemovalPolicy.DESTROY,
      existingEventBus: EventBus.fromEventBusName(stack, 'Central', 'central'),
      archiveRetention: Duration.days(90),
    });
    const template = Template.fromStack(stack);
    template.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Delete' });
    template.resourceCountIs('AWS::Events::EventBus', 0);
    template.hasResourceProperties('AWS::Events::Archive', { RetentionDays: 90 });
  });

  it('with data in its own stack, keeps every stateful resource out of the stateless stack', () => {
    const app = testApp();
    const data = new CarhookData(new Stack(app, 'Data', { env }), 'Data');
    const stack = new Stack(app, 'Stateless', { env });
    new Carhook(stack, 'Carhook', { ...required, data });
    const template = Template.fromStack(stack);
    for (const type of [
      'AWS::DynamoDB::GlobalTable',
      'AWS::Events::EventBus',
      'AWS::SecretsManager::Secret',
      'AWS::EventSchemas::Registry',
    ]) {
      template.resourceCountIs(type, 0);
    }
    template.resourceCountIs('AWS::SNS::Topic', 1);
  });

  it('addFunction configures a house function for this deployment', () => {
    const stack = new Stack(noBundling(), 'Fn', { env });
    const carhook = new Carhook(stack, 'Carhook', {
      ...required,
      serviceName: 'carhook-staging',
      logLevel: 'DEBUG',
    });
    const fn = carhook.addFunction('Extra', { entry: FIXTURE_HANDLER, environment: { EXTRA: '1' } });
    expect(carhook.functions.get('Extra')).toBe(fn);
    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: {
          POWERTOOLS_SERVICE_NAME: 'carhook-staging',
          POWERTOOLS_LOG_LEVEL: 'DEBUG',
          CARHOOK_API_BASE_URL: 'https://api.example.net',
          CARHOOK_BRANDS: 'cielo',
          CARHOOK_QUOTA_REQUESTS: '120',
          EXTRA: '1',
        },
      },
    });
    // The stateless part's own ids are taken too.
    expect(() => carhook.addFunction('Planner', { entry: FIXTURE_HANDLER })).toThrow(
      /`addFunction\(Planner\)` is already defined/,
    );
  });
});
