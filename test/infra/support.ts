import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type Stack, Validations } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';
import { REPO_ROOT } from '../../lib/paths';

/** The tiny real handler the house-function tests bundle (the runtime's handlers come later). */
export const FIXTURE_HANDLER = join(REPO_ROOT, 'test/infra/fixtures/echo-handler.ts');
export const FIXTURES_DIR = join(REPO_ROOT, 'test/infra/fixtures');

/**
 * An App with cdk.json's feature flags, so tests synthesize what `cdk synth` does, writing to a
 * throwaway directory instead of cdk.out. Functions are not bundled unless `bundle` is set: esbuild
 * runs in the tests that are about bundles (carhook-function, bundles), not in every template test.
 */
export function testApp(context: Record<string, unknown> = {}, options: { bundle?: boolean } = {}): App {
  const cdkJson = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  return new App({
    context: {
      ...cdkJson.context,
      ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
      ...context,
    },
    outdir: mkdtempSync(join(tmpdir(), 'carhook-cdk-')),
  });
}

export interface Statement {
  readonly Effect: string;
  readonly Action: string[];
  readonly Resource: unknown[];
  readonly Condition?: Record<string, unknown>;
}

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** Every IAM policy statement attached to the role (by the role's resolved logical id). */
export function roleStatements(template: Template, stack: Stack, role: IRole): Statement[] {
  const roleRef = stack.resolve(role.roleName) as unknown;
  const policies = template.findResources('AWS::IAM::Policy');
  const out: Statement[] = [];
  for (const policy of Object.values(policies)) {
    // Template JSON at a parsing boundary: shapes are checked by the assertions that use them.
    const props = policy.Properties as {
      Roles?: unknown[];
      PolicyDocument: { Statement: Record<string, unknown>[] };
    };
    if (!asArray(props.Roles).some((r) => JSON.stringify(r) === JSON.stringify(roleRef))) continue;
    for (const s of props.PolicyDocument.Statement) {
      out.push({
        Effect: s.Effect as string,
        Action: asArray(s.Action as string | string[]),
        Resource: asArray(s.Resource),
        ...(s.Condition === undefined ? {} : { Condition: s.Condition as Record<string, unknown> }),
      });
    }
  }
  return out;
}

/** Every IAM statement of every policy of the template. */
export function allStatements(template: Template): Array<Statement & { policy: string }> {
  const out: Array<Statement & { policy: string }> = [];
  for (const [id, policy] of Object.entries(template.findResources('AWS::IAM::Policy'))) {
    const props = policy.Properties as { PolicyDocument: { Statement: Record<string, unknown>[] } };
    for (const s of props.PolicyDocument.Statement) {
      out.push({
        policy: id,
        Effect: s.Effect as string,
        Action: asArray(s.Action as string | string[]),
        Resource: asArray(s.Resource),
      });
    }
  }
  return out;
}

/** X-Ray has no resource-level permissions: the one place `Resource: "*"` is legitimate. */
export const XRAY_ACTIONS = ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'];

/**
 * Actions the statements allow on exactly this resource, sorted. Independent of how CDK groups
 * and orders statements (the `minimizePolicies` flag merges and sorts them).
 */
export function actionsOn(statements: readonly Statement[], resource: unknown): string[] {
  const wanted = JSON.stringify(resource);
  const actions = statements
    .filter((s) => s.Resource.some((r) => JSON.stringify(r) === wanted))
    .flatMap((s) => s.Action);
  return [...new Set(actions)].sort();
}

/** Every resource the statements grant `action` on. */
export function resourcesOf(statements: readonly Statement[], action: string): unknown[] {
  return statements.filter((s) => s.Action.includes(action)).flatMap((s) => s.Resource);
}

export interface Acknowledgement {
  readonly path: string;
  readonly id: string;
  readonly reason: string;
}

/** Every `Validations.of(x).acknowledge(...)` under `scope` (construct metadata), with where and why. */
export function acknowledgements(scope: IConstruct): Acknowledgement[] {
  const out: Acknowledgement[] = [];
  for (const construct of scope.node.findAll()) {
    for (const entry of construct.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      // Metadata JSON: rule id (prefixed `Annotation::`) → reason.
      for (const [key, reason] of Object.entries(entry.data as Record<string, string>)) {
        out.push({ path: construct.node.path, id: key.replace(/^Annotation::/, ''), reason });
      }
    }
  }
  return out;
}
