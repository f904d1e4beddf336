/**
 * cfn-lint (the CloudFormation linter, an independent reading of the resource specification) on
 * every template of an assembly. A finding fails the rehearsal unless it is listed below with the
 * reason it stays.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface LintFinding {
  readonly rule: string;
  readonly level: 'Error' | 'Warning' | 'Informational';
  readonly message: string;
  readonly file: string;
  readonly path: readonly (string | number)[];
}

export interface KnownFinding {
  readonly rule: string;
  readonly matches: (f: LintFinding) => boolean;
  readonly reason: string;
}

/** Findings that stay, each with why. */
export const KNOWN_FINDINGS: readonly KnownFinding[] = [
  {
    rule: 'E6101',
    matches: (f) => f.path[0] === 'Outputs' && f.message.includes('Fn::GetStackOutput'),
    reason:
      "cfn-lint 1.51 does not know Fn::GetStackOutput in an output's value. CloudFormation documents the intrinsic " +
      '(Template Reference Guide, "Fn::GetStackOutput": https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/intrinsic-function-reference-getstackoutput.html); ' +
      'CDK emits it for weak cross-stack references (@aws-cdk/core:defaultCrossStackReferences = weak).',
  },
  {
    rule: 'W3005',
    matches: (f) => f.path[0] === 'Resources' && f.path[2] === 'DependsOn' && /ServiceRole/.test(f.message),
    reason:
      "aws-cdk-lib's Function makes the function depend on its execution role and the role's default policy; the " +
      'role half repeats the dependency its Role GetAtt already creates. Harmless, and not ours to change.',
  },
];

export interface LintReport {
  readonly findings: readonly LintFinding[];
  readonly unexpected: readonly LintFinding[];
  readonly known: readonly { finding: LintFinding; reason: string }[];
}

export class LintUnavailableError extends Error {
  readonly kind = 'LinterMissing';
}

export async function lintTemplates(dir: string, templateFiles: readonly string[]): Promise<LintReport> {
  let stdout: string;
  try {
    const result = await promisify(execFile)(
      'cfn-lint',
      ['--format', 'json', ...templateFiles.map((f) => join(dir, f))],
      {
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    stdout = result.stdout;
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stdout?: string };
    if (e.code === 'ENOENT')
      throw new LintUnavailableError("cfn-lint is not on the PATH: install it with pip install 'cfn-lint'");
    // cfn-lint exits non-zero when it finds something; the findings are still on stdout.
    if (typeof e.stdout !== 'string' || !e.stdout.trim().startsWith('[')) throw error;
    stdout = e.stdout;
  }
  const raw = JSON.parse(stdout || '[]') as {
    Rule: { Id: string };
    Level: LintFinding['level'];
    Message: string;
    Filename: string;
    Location: { Path: (string | number)[] };
  }[];
  const findings = raw.map((r) => ({
    rule: r.Rule.Id,
    level: r.Level,
    message: r.Message,
    file: r.Filename,
    path: r.Location.Path,
  }));
  const known: { finding: LintFinding; reason: string }[] = [];
  const unexpected: LintFinding[] = [];
  for (const f of findings) {
    const k = KNOWN_FINDINGS.find((x) => x.rule === f.rule && x.matches(f));
    if (k) known.push({ finding: f, reason: k.reason });
    else unexpected.push(f);
  }
  return { findings, unexpected, known };
}
