/**
 * CloudFormation's intrinsic functions, resolved against the resources the rehearsal created: the
 * subset CDK emits (`Ref`, `Fn::GetAtt`, `Fn::Join`, `Fn::Sub`, `Fn::Select`, `Fn::Split`,
 * `Fn::GetStackOutput` for weak cross-stack references, `Fn::ImportValue`, `Fn::If` and
 * `AWS::NoValue`). Anything else is an error that names where it was found, so a template the
 * rehearsal cannot read is reported, never half-resolved.
 */

/** What a template may reference; `undefined` answers mean "not created (yet)". */
export interface ResolveScope {
  readonly pseudo: Readonly<Record<string, string>>;
  ref(logicalId: string): string | undefined;
  getAtt(logicalId: string, attribute: string): string | undefined;
  stackOutput(stackName: string, outputName: string): string | undefined;
  importValue(exportName: string): string | undefined;
  condition(name: string): boolean;
}

export class IntrinsicError extends Error {
  readonly kind = 'Malformed';
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`${path}: ${reason}`);
    this.name = 'IntrinsicError';
  }
}

const NO_VALUE = Symbol('AWS::NoValue');

/** The logical ids a value references through `Ref` and `Fn::GetAtt` (pseudo parameters left out). */
export function referencedIds(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const v of value) referencedIds(v, out);
  } else if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    const [key, arg] = entries[0] ?? [];
    if (entries.length === 1 && key === 'Ref' && typeof arg === 'string') {
      if (!arg.startsWith('AWS::')) out.add(arg);
    } else if (entries.length === 1 && key === 'Fn::GetAtt') {
      const id = Array.isArray(arg) ? arg[0] : typeof arg === 'string' ? arg.split('.')[0] : undefined;
      if (typeof id === 'string') out.add(id);
    } else if (entries.length === 1 && key === 'Fn::Sub') {
      const [text, vars] = Array.isArray(arg) ? arg : [arg, {}];
      for (const m of String(text).matchAll(/\$\{([^!}][^}]*)\}/g)) {
        const name = (m[1] ?? '').split('.')[0] ?? '';
        if (!name.startsWith('AWS::') && !(vars && name in (vars as object))) out.add(name);
      }
      referencedIds(vars, out);
    } else {
      for (const [, v] of entries) referencedIds(v, out);
    }
  }
  return out;
}

/** `value` with every intrinsic replaced by what it stands for in `scope`. */
export function resolve(value: unknown, scope: ResolveScope, path = ''): unknown {
  const out = resolveAny(value, scope, path);
  return out === NO_VALUE ? undefined : out;
}

/** `resolve`, for a value that must come out as a string (an environment variable, an ARN). */
export function resolveString(value: unknown, scope: ResolveScope, path: string): string {
  const out = resolve(value, scope, path);
  if (typeof out === 'string') return out;
  if (typeof out === 'number' || typeof out === 'boolean') return String(out);
  throw new IntrinsicError(path, `must resolve to a string, got ${JSON.stringify(out)}`);
}

function resolveAny(value: unknown, scope: ResolveScope, path: string): unknown {
  if (Array.isArray(value)) {
    return value.map((v, i) => resolveAny(v, scope, `${path}[${i}]`)).filter((v) => v !== NO_VALUE);
  }
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  const first = entries[0];
  if (entries.length === 1 && first && (first[0] === 'Ref' || first[0].startsWith('Fn::'))) {
    return intrinsic(first[0], first[1], scope, `${path}.${first[0]}`);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) {
    const r = resolveAny(v, scope, path ? `${path}.${k}` : k);
    if (r !== NO_VALUE) out[k] = r;
  }
  return out;
}

function str(value: unknown, scope: ResolveScope, path: string): string {
  const out = resolveAny(value, scope, path);
  if (typeof out === 'string' || typeof out === 'number') return String(out);
  throw new IntrinsicError(path, `must resolve to a string, got ${JSON.stringify(out)}`);
}

function known(value: string | undefined, path: string, what: string): string {
  if (value === undefined)
    throw new IntrinsicError(path, `${what} is not created (or not known to the rehearsal)`);
  return value;
}

function intrinsic(name: string, arg: unknown, scope: ResolveScope, path: string): unknown {
  switch (name) {
    case 'Ref': {
      if (arg === 'AWS::NoValue') return NO_VALUE;
      if (typeof arg !== 'string') throw new IntrinsicError(path, 'must name a logical id');
      const pseudo = scope.pseudo[arg];
      if (pseudo !== undefined) return pseudo;
      return known(scope.ref(arg), path, arg);
    }
    case 'Fn::GetAtt': {
      const [id, ...rest] = Array.isArray(arg) ? arg.map(String) : String(arg).split('.');
      const attribute = rest.join('.');
      if (!id || !attribute) throw new IntrinsicError(path, 'must be [logicalId, attribute]');
      return known(scope.getAtt(id, attribute), path, `${id}.${attribute}`);
    }
    case 'Fn::Join': {
      const [sep, list] = Array.isArray(arg) ? arg : [];
      const items = resolveAny(list, scope, `${path}[1]`);
      if (typeof sep !== 'string' || !Array.isArray(items)) {
        throw new IntrinsicError(path, 'must be [separator, [values]]');
      }
      return items
        .map((v, i) => (typeof v === 'string' || typeof v === 'number' ? String(v) : badPart(path, i, v)))
        .join(sep);
    }
    case 'Fn::Select': {
      const [index, list] = Array.isArray(arg) ? arg : [];
      const items = resolveAny(list, scope, `${path}[1]`);
      const i = Number(resolveAny(index, scope, `${path}[0]`));
      if (!Array.isArray(items) || !Number.isInteger(i) || i < 0 || i >= items.length) {
        throw new IntrinsicError(path, `index ${String(index)} is outside the list`);
      }
      return items[i];
    }
    case 'Fn::Split': {
      const [sep, source] = Array.isArray(arg) ? arg : [];
      if (typeof sep !== 'string') throw new IntrinsicError(path, 'must be [separator, string]');
      return str(source, scope, `${path}[1]`).split(sep);
    }
    case 'Fn::Sub': {
      const [text, vars] = Array.isArray(arg) ? arg : [arg, {}];
      if (typeof text !== 'string') throw new IntrinsicError(path, 'must be a string or [string, variables]');
      const given = (vars ?? {}) as Record<string, unknown>;
      return text.replace(/\$\{([^}]*)\}/g, (whole, expr: string) => {
        if (expr.startsWith('!')) return `\${${expr.slice(1)}}`;
        if (expr in given) return str(given[expr], scope, `${path}.${expr}`);
        const [id, ...att] = expr.split('.');
        if (!id) return whole;
        return att.length > 0
          ? str({ 'Fn::GetAtt': [id, att.join('.')] }, scope, path)
          : str({ Ref: id }, scope, path);
      });
    }
    case 'Fn::GetStackOutput': {
      const { StackName, OutputName } = (arg ?? {}) as { StackName?: unknown; OutputName?: unknown };
      const stack = str(StackName, scope, `${path}.StackName`);
      const output = str(OutputName, scope, `${path}.OutputName`);
      return known(scope.stackOutput(stack, output), path, `output ${output} of stack ${stack}`);
    }
    case 'Fn::ImportValue': {
      const exportName = str(arg, scope, path);
      return known(scope.importValue(exportName), path, `export ${exportName}`);
    }
    case 'Fn::If': {
      const [condition, whenTrue, whenFalse] = Array.isArray(arg) ? arg : [];
      if (typeof condition !== 'string') throw new IntrinsicError(path, 'must be [condition, then, else]');
      return resolveAny(scope.condition(condition) ? whenTrue : whenFalse, scope, path);
    }
    default:
      throw new IntrinsicError(path, `${name} is not an intrinsic the rehearsal resolves`);
  }
}

function badPart(path: string, i: number, v: unknown): never {
  throw new IntrinsicError(`${path}[1][${i}]`, `must resolve to a string, got ${JSON.stringify(v)}`);
}
