/**
 * Who signs each request of the rehearsal, and whether IAM would let them.
 *
 * Principals are the functions' role sessions (credentials from moto's STS `AssumeRole`, as Lambda
 * gets them for a function's execution role) and the operator user the scenario creates. Their
 * policies are read back from moto's IAM, where the templates put them.
 *
 * Decisions come from `@cloud-copilot/iam-simulate`, an IAM policy evaluator written outside this
 * project that follows the Service Authorization Reference (resource ARNs, condition keys and
 * their types). moto also enforces IAM, but it evaluates EventBridge, Secrets Manager and DynamoDB
 * actions against the resource `*` and without condition keys, so a least-privilege statement
 * (`events:PutEvents` on one bus for one `events:source`) would be refused there; the evaluator
 * decides those, and SQS is checked by both.
 */
import { createHash } from 'node:crypto';
import {
  GetPolicyCommand,
  GetPolicyVersionCommand,
  GetRolePolicyCommand,
  type IAMClient,
  ListAttachedRolePoliciesCommand,
  ListRolePoliciesCommand,
} from '@aws-sdk/client-iam';
import { runSimulation, type Simulation } from '@cloud-copilot/iam-simulate';
import type { Credentials } from './admin';
import type { AuthorizationCheck } from './authorization';
import type { PolicyDocument } from './model';

export interface NamedPolicy {
  readonly name: string;
  readonly policy: PolicyDocument;
}

export interface Principal {
  /** `arn:aws:sts::<account>:assumed-role/<role>/<session>` or `arn:aws:iam::<account>:user/<name>`. */
  readonly arn: string;
  /** Who it is in the rehearsal's words: the function's logical id, or `operator`. */
  readonly label: string;
  readonly credentials: Credentials;
  readonly policies: readonly NamedPolicy[];
}

export class Principals {
  private readonly byKey = new Map<string, Principal>();
  add(principal: Principal): void {
    this.byKey.set(principal.credentials.accessKeyId, principal);
  }
  byAccessKey(accessKeyId: string): Principal | undefined {
    return this.byKey.get(accessKeyId);
  }
  all(): Principal[] {
    return [...this.byKey.values()];
  }
}

/** A role's inline and attached policies, as moto's IAM holds them. */
export async function rolePolicies(iam: IAMClient, roleName: string): Promise<NamedPolicy[]> {
  const out: NamedPolicy[] = [];
  const inline = await iam.send(new ListRolePoliciesCommand({ RoleName: roleName }));
  for (const name of inline.PolicyNames ?? []) {
    const p = await iam.send(new GetRolePolicyCommand({ RoleName: roleName, PolicyName: name }));
    out.push({ name, policy: parseDocument(p.PolicyDocument) });
  }
  const attached = await iam.send(new ListAttachedRolePoliciesCommand({ RoleName: roleName }));
  for (const a of attached.AttachedPolicies ?? []) {
    const p = await iam.send(new GetPolicyCommand({ PolicyArn: a.PolicyArn }));
    const v = await iam.send(
      new GetPolicyVersionCommand({ PolicyArn: a.PolicyArn, VersionId: p.Policy?.DefaultVersionId }),
    );
    out.push({ name: a.PolicyName ?? String(a.PolicyArn), policy: parseDocument(v.PolicyVersion?.Document) });
  }
  return out;
}

/** IAM returns documents URL-encoded (moto too, depending on the call): either form is read. */
function parseDocument(raw: string | undefined): PolicyDocument {
  const text = raw ?? '{"Statement":[]}';
  return JSON.parse(text.trimStart().startsWith('{') ? text : decodeURIComponent(text)) as PolicyDocument;
}

export interface Decision {
  readonly allowed: boolean;
  /** Why not, in IAM's words (`ImplicitlyDenied`, `ExplicitlyDenied`) or the evaluator's errors. */
  readonly reason: string;
}

/** Evaluates checks for principals; identical questions are answered from a cache. */
export class PolicyEvaluator {
  private readonly cache = new Map<string, Promise<Decision>>();

  constructor(
    private readonly account: string,
    private readonly resourcePolicies: ReadonlyMap<string, PolicyDocument>,
  ) {}

  decide(principal: Principal, check: AuthorizationCheck): Promise<Decision> {
    const key = createHash('sha256')
      .update(JSON.stringify([principal.arn, check.action, check.resource, check.context]))
      .digest('hex');
    let decision = this.cache.get(key);
    if (!decision) {
      decision = this.evaluate(principal, check);
      this.cache.set(key, decision);
    }
    return decision;
  }

  private async evaluate(principal: Principal, check: AuthorizationCheck): Promise<Decision> {
    const resourcePolicy = this.resourcePolicies.get(check.resource);
    const simulation: Simulation = {
      request: {
        principal: principal.arn,
        action: check.action,
        resource: { resource: check.resource, accountId: this.account },
        // The SDK speaks TLS to AWS; resource policies that refuse plain HTTP see it as such.
        contextVariables: { 'aws:SecureTransport': 'true', ...check.context },
      },
      identityPolicies: principal.policies.map((p) => ({ name: p.name, policy: p.policy })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(resourcePolicy ? { resourcePolicy } : {}),
    };
    const result = await runSimulation(simulation, {});
    if (result.resultType === 'error') {
      return {
        allowed: false,
        reason: `the evaluator refused the request: ${JSON.stringify(result.errors)}`,
      };
    }
    return result.overallResult === 'Allowed'
      ? { allowed: true, reason: 'Allowed' }
      : { allowed: false, reason: String(result.overallResult) };
  }
}
