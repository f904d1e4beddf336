/**
 * Deploys a cloud assembly the way CloudFormation would, onto moto and DynamoDB Local: stacks in
 * dependency order, each stack's resources in the order their references require, every property
 * resolved (./intrinsics.ts) from what was already created. Each resource type the rehearsal
 * knows is created by ./resources.ts; the others (alarms, dashboards, log groups, schema
 * registry…) get a stand-in physical id so references to them resolve, and are listed as not
 * rehearsed.
 */
import { randomBytes } from 'node:crypto';
import type { AdminClients } from './admin';
import { AssemblyError, type AssemblyStack, type CfnResource } from './assembly';
import { IntrinsicError, type ResolveScope, referencedIds, resolve } from './intrinsics';
import type { Deployment } from './model';
import { RESOURCE_HANDLERS } from './resources';

export interface Physical {
  readonly ref: string;
  readonly attributes: Readonly<Record<string, string>>;
}

export interface ProvisionContext {
  readonly admin: AdminClients;
  readonly deployment: Deployment;
  readonly assemblyDir: string;
  readonly stack: string;
  /** A name as CloudFormation generates it: `<stack>-<logicalId>-<random>`, at most `max` characters. */
  physicalName(logicalId: string, max: number): string;
}

export type ResourceHandler = (
  ctx: ProvisionContext,
  logicalId: string,
  props: Record<string, unknown>,
  resource: CfnResource,
) => Promise<Physical>;

export interface ProvisionOptions {
  readonly admin: AdminClients;
  /** Filled as resources are created (the IAM gate already reads it while provisioning runs). */
  readonly deployment: Deployment;
  readonly assemblyDir: string;
  readonly region: string;
  readonly account: string;
  /** Called after each resource: `(stack, logicalId, type)`. */
  readonly onResource?: (stack: string, logicalId: string, type: string) => void;
}

export function physicalName(stack: string, logicalId: string, max: number): string {
  const suffix = randomBytes(8).toString('hex').toUpperCase().slice(0, 12);
  const base = `${stack}-${logicalId}`.replace(/[^A-Za-z0-9-_]/g, '');
  return `${base.slice(0, Math.max(1, max - suffix.length - 1))}-${suffix}`;
}

export async function provision(
  stacks: readonly AssemblyStack[],
  options: ProvisionOptions,
): Promise<Deployment> {
  const { region, account, deployment } = options;
  const exports = new Map<string, string>();
  for (const stack of stacks) {
    const created = new Map<string, Physical>();
    const pseudo = {
      'AWS::AccountId': account,
      'AWS::Region': region,
      'AWS::Partition': 'aws',
      'AWS::URLSuffix': 'amazonaws.com',
      'AWS::StackName': stack.name,
      'AWS::StackId': `arn:aws:cloudformation:${region}:${account}:stack/${stack.name}/rehearsal`,
      ...parameterValues(stack),
    };
    const scope: ResolveScope = {
      pseudo,
      ref: (id) => created.get(id)?.ref,
      getAtt: (id, attribute) => created.get(id)?.attributes[attribute],
      stackOutput: (stackName, output) => deployment.outputs.get(`${stackName}.${output}`),
      importValue: (name) => exports.get(name),
      condition: (name) => evaluateCondition(stack, name, scope),
    };
    const ctx: ProvisionContext = {
      admin: options.admin,
      deployment,
      assemblyDir: options.assemblyDir,
      stack: stack.name,
      physicalName: (id, max) => physicalName(stack.name, id, max),
    };
    for (const logicalId of deploymentOrder(stack)) {
      const resource = stack.template.Resources[logicalId] as CfnResource;
      if (resource.Condition && !scope.condition(resource.Condition)) continue;
      const props = resolve(
        resource.Properties ?? {},
        scope,
        `${stack.name}.${logicalId}.Properties`,
      ) as Record<string, unknown>;
      const handler = RESOURCE_HANDLERS[resource.Type];
      let physical: Physical;
      if (handler) {
        try {
          physical = await handler(ctx, logicalId, props, resource);
        } catch (error) {
          throw new ProvisionError(stack.name, logicalId, resource.Type, error);
        }
      } else {
        physical = standIn(resource.Type, ctx.physicalName(logicalId, 64), region, account);
        deployment.notRehearsed.push({ stack: stack.name, logicalId, type: resource.Type });
      }
      created.set(logicalId, physical);
      options.onResource?.(stack.name, logicalId, resource.Type);
    }
    for (const [name, output] of Object.entries(stack.template.Outputs ?? {})) {
      const value = resolve(output.Value, scope, `${stack.name}.Outputs.${name}`);
      deployment.outputs.set(`${stack.name}.${name}`, String(value));
      if (output.Export)
        exports.set(
          String(resolve(output.Export.Name, scope, `${stack.name}.Outputs.${name}.Export`)),
          String(value),
        );
    }
  }
  return deployment;
}

/** A resource of `stack` could not be created: names the stack, the resource, its type and why. */
export class ProvisionError extends Error {
  readonly kind = 'ProvisionFailed';
  constructor(
    readonly stackName: string,
    readonly logicalId: string,
    readonly type: string,
    override readonly cause: unknown,
  ) {
    super(
      `${stackName}/${logicalId} (${type}) could not be created: ${cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)}`,
    );
    this.name = 'ProvisionError';
  }
}

/** Logical ids, each after everything it references or names in `DependsOn`. */
export function deploymentOrder(stack: AssemblyStack): string[] {
  const resources = stack.template.Resources;
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (id: string, path: string[]) => {
    if (state.get(id) === 'done') return;
    if (state.get(id) === 'visiting') {
      throw new AssemblyError(`${stack.name}.Resources`, `circular references: ${[...path, id].join(' → ')}`);
    }
    const resource = resources[id];
    if (!resource) return; // a parameter or a pseudo parameter
    state.set(id, 'visiting');
    const deps = referencedIds(resource.Properties ?? {});
    for (const d of [resource.DependsOn ?? []].flat()) deps.add(d);
    for (const d of [...deps].sort()) visit(d, [...path, id]);
    state.set(id, 'done');
    order.push(id);
  };
  for (const id of Object.keys(resources)) visit(id, []);
  return order;
}

/** Parameters take their defaults; SSM-backed ones (CDK's BootstrapVersion) a value that passes its rule. */
function parameterValues(stack: AssemblyStack): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, p] of Object.entries(stack.template.Parameters ?? {})) {
    out[name] = p.Type.startsWith('AWS::SSM::Parameter::Value') ? '99' : String(p.Default ?? '');
  }
  return out;
}

function evaluateCondition(stack: AssemblyStack, name: string, scope: ResolveScope): boolean {
  const definition = stack.template.Conditions?.[name];
  if (definition === undefined)
    throw new IntrinsicError(`${stack.name}.Conditions.${name}`, 'is not defined');
  const evaluate = (c: unknown, path: string): boolean => {
    const [fn, arg] = Object.entries(c as object)[0] ?? [];
    const args = Array.isArray(arg) ? arg : [];
    switch (fn) {
      case 'Fn::Equals':
        return (
          JSON.stringify(resolve(args[0], scope, path)) === JSON.stringify(resolve(args[1], scope, path))
        );
      case 'Fn::Not':
        return !evaluate(args[0], path);
      case 'Fn::And':
        return args.every((a) => evaluate(a, path));
      case 'Fn::Or':
        return args.some((a) => evaluate(a, path));
      case 'Condition':
        return evaluateCondition(stack, String(arg), scope);
      default:
        throw new IntrinsicError(path, `${String(fn)} is not a condition function`);
    }
  };
  return evaluate(definition, `${stack.name}.Conditions.${name}`);
}

/** A stand-in for a resource that is not rehearsed: an id, and an ARN-shaped value for any attribute. */
function standIn(type: string, id: string, region: string, account: string): Physical {
  const [, service = 'unknown', kind = 'resource'] = type.split('::');
  const arn = `arn:aws:${service.toLowerCase()}:${region}:${account}:${kind.toLowerCase()}/${id}`;
  const attributes = new Proxy({} as Record<string, string>, {
    get: (_t, attribute) => (attribute === 'Arn' || String(attribute).endsWith('Arn') ? arn : id),
  });
  return { ref: id, attributes };
}
