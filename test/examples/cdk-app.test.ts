/**
 * The example consumer CDK app (examples/cdk-app) synthesizes as `cdk synth` runs it: its own
 * process in its own folder, importing Carhook by package name (`carhook/cdk`), with its rule on
 * Carhook's bus sending `vehicle.alert.raised` to its queue. Bundling is skipped
 * (`aws:cdk:bundling-stacks: []`, what `cdk synth --exclusively` uses), the templates are complete.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lib/paths';

const EXAMPLE = join(REPO_ROOT, 'examples', 'cdk-app');

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation template JSON, read freely.
type Json = any;

describe('examples/cdk-app', () => {
  const out = mkdtempSync(join(tmpdir(), 'carhook-cdk-app-'));
  let template: Json;
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  beforeAll(async () => {
    // What the CDK CLI does for `cdk synth`: run the app with an output directory and context.
    await promisify(execFile)(process.execPath, ['--import', 'tsx', 'bin/app.ts'], {
      cwd: EXAMPLE,
      env: {
        ...process.env,
        CDK_OUTDIR: out,
        CDK_CONTEXT_JSON: JSON.stringify({ 'aws:cdk:bundling-stacks': [] }),
        CDK_DEFAULT_REGION: 'eu-west-1',
      },
      timeout: 170_000,
    });
    template = JSON.parse(readFileSync(join(out, 'CarhookAlerts.template.json'), 'utf8'));
  }, 180_000);

  const resources = (type: string): [string, Json][] =>
    Object.entries(template.Resources as Record<string, Json>).filter(([, r]) => r.Type === type);

  it('imports Carhook by its package name, not by a path into this repository', () => {
    const source = readFileSync(join(EXAMPLE, 'lib', 'alerts-stack.ts'), 'utf8');
    expect(source).toContain("from 'carhook/cdk'");
    expect(source).not.toMatch(/from '\.\.\/\.\.\//);
    const pkg = JSON.parse(readFileSync(join(EXAMPLE, 'package.json'), 'utf8'));
    expect(pkg.dependencies.carhook).toBeDefined();
  });

  it('sends vehicle.alert.raised from Carhook’s bus to its own queue', () => {
    const bus = resources('AWS::Events::EventBus');
    expect(bus).toHaveLength(1);
    const [busId] = bus[0] as [string, Json];
    const rules = resources('AWS::Events::Rule').filter(([, r]) =>
      JSON.stringify(r.Properties.EventPattern).includes('vehicle.alert.raised'),
    );
    expect(rules).toHaveLength(1);
    const [, rule] = rules[0] as [string, Json];
    expect(rule.Properties.EventBusName).toEqual({ Ref: busId });
    expect(rule.Properties.EventPattern).toEqual({
      source: ['carhook'],
      'detail-type': ['vehicle.alert.raised'],
    });
    const queues = resources('AWS::SQS::Queue').filter(([id]) => id.startsWith('Alerts'));
    const alerts = queues.find(([id]) => !id.includes('DeadLetters'));
    const deadLetters = queues.find(([id]) => id.includes('DeadLetters'));
    expect(alerts && deadLetters).toBeTruthy();
    expect(rule.Properties.Targets).toEqual([
      {
        Arn: { 'Fn::GetAtt': [alerts?.[0], 'Arn'] },
        Id: 'Target0',
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [deadLetters?.[0], 'Arn'] } },
      },
    ]);
    // EventBridge may send to the queue, from this rule only.
    const policies = resources('AWS::SQS::QueuePolicy').filter(([, p]) =>
      JSON.stringify(p.Properties.Queues).includes(String(alerts?.[0])),
    );
    const statements = JSON.stringify(policies.map(([, p]) => p.Properties.PolicyDocument.Statement));
    expect(statements).toContain('events.amazonaws.com');
    expect(statements).toContain('sqs:SendMessage');
    expect(statements).toContain('aws:SourceArn');
  });

  it('gets the whole of Carhook from the package: its functions, HTTP API and table', () => {
    expect(resources('AWS::Lambda::Function')).toHaveLength(7);
    expect(resources('AWS::ApiGatewayV2::Api')).toHaveLength(1);
    expect(resources('AWS::DynamoDB::GlobalTable')).toHaveLength(1);
  });
});
