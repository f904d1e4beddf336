/**
 * A synthesized CDK app as the rehearsal reads it: the cloud assembly's `manifest.json` lists the
 * CloudFormation stacks (with their environment and the stacks they depend on) and each stack's
 * template; a bundled Lambda's code is the asset folder its `aws:asset:path` metadata names.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly DependsOn?: string | string[];
  readonly Metadata?: Record<string, unknown>;
  readonly Condition?: string;
}

export interface CfnTemplate {
  readonly Resources: Record<string, CfnResource>;
  readonly Outputs?: Record<string, { Value: unknown; Export?: { Name: unknown } }>;
  readonly Parameters?: Record<string, { Type: string; Default?: unknown }>;
  readonly Conditions?: Record<string, unknown>;
}

export interface AssemblyStack {
  /** The stack's name in CloudFormation (`Carhook-Data`). */
  readonly name: string;
  readonly template: CfnTemplate;
  /** From `aws://<account>/<region>`; `unknown-*` when the app left them to the CLI. */
  readonly region: string | undefined;
  readonly account: string | undefined;
  readonly dependsOn: readonly string[];
}

/** The assembly cannot be rehearsed as it is: says which file or field and why. */
export class AssemblyError extends Error {
  readonly kind = 'Malformed';
  constructor(
    readonly where: string,
    reason: string,
  ) {
    super(`${where}: ${reason}`);
    this.name = 'AssemblyError';
  }
}

interface ManifestArtifact {
  readonly type: string;
  readonly environment?: string;
  readonly dependencies?: string[];
  readonly properties?: { templateFile?: string; stackName?: string };
}

/** The stacks of `dir`, in an order CloudFormation could deploy them (dependencies first). */
export function readAssembly(dir: string): AssemblyStack[] {
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath)) {
    throw new AssemblyError(dir, 'has no manifest.json: not a cdk.out folder (run `cdk synth -o <dir>`)');
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    artifacts?: Record<string, ManifestArtifact>;
  };
  const artifacts = Object.entries(manifest.artifacts ?? {}).filter(
    ([, a]) => a.type === 'aws:cloudformation:stack',
  );
  if (artifacts.length === 0) throw new AssemblyError(manifestPath, 'lists no CloudFormation stack');
  const ids = new Set(artifacts.map(([id]) => id));
  const stacks = new Map<string, AssemblyStack>();
  for (const [id, artifact] of artifacts) {
    const file = artifact.properties?.templateFile;
    if (!file) throw new AssemblyError(`${manifestPath} artifacts.${id}`, 'has no templateFile');
    const template = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CfnTemplate;
    const env = /^aws:\/\/([^/]+)\/(.+)$/.exec(artifact.environment ?? '');
    const known = (v: string | undefined) => (v && !v.startsWith('unknown-') ? v : undefined);
    stacks.set(id, {
      name: artifact.properties?.stackName ?? id,
      template,
      region: known(env?.[2]),
      account: known(env?.[1]),
      dependsOn: (artifact.dependencies ?? []).filter((d) => ids.has(d)),
    });
  }
  const ordered: AssemblyStack[] = [];
  const visit = (id: string, path: string[]) => {
    const stack = stacks.get(id);
    if (!stack || ordered.includes(stack)) return;
    if (path.includes(id))
      throw new AssemblyError(manifestPath, `stacks depend on each other: ${[...path, id].join(' → ')}`);
    for (const dep of stack.dependsOn) visit(dep, [...path, id]);
    ordered.push(stack);
  };
  for (const id of stacks.keys()) visit(id, []);
  return ordered;
}

/** The folder of a bundled Lambda's code, from the resource's asset metadata. */
export function assetDir(assemblyDir: string, logicalId: string, resource: CfnResource): string {
  const path = resource.Metadata?.['aws:asset:path'];
  if (typeof path !== 'string') {
    throw new AssemblyError(
      `${logicalId}.Metadata`,
      'has no aws:asset:path: only functions whose code is a bundled asset can be rehearsed',
    );
  }
  const dir = isAbsolute(path) ? path : join(assemblyDir, path);
  if (!existsSync(dir)) throw new AssemblyError(`${logicalId} asset`, `${dir} does not exist`);
  return dir;
}
