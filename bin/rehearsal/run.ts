/**
 * One rehearsal of a deploy, start to end: the cloud assembly (synthesized here, or given), the
 * simulator as the connected-car API, the deployment on moto and DynamoDB Local, the scenario,
 * the checks at the end (dead-letter queues, IAM), and everything stopped after, pass or fail.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { RUNTIME_ENV } from '../../functions/runtime/config';
import { type RunningDeployment, startDeployment } from './deploy';
import { runScenario, type ScenarioResult } from './scenario';
import { type RehearsalSimulator, startRehearsalSimulator } from './simulator';
import { type StepFailed, Steps, seconds } from './steps';
import { loopbackCertificate } from './tls';

export interface RehearsalOptions {
  /** A synthesized app (`cdk.out`); without it, the app in `appDir` is synthesized first. */
  readonly cdkOut?: string;
  /** Where `cdk synth` runs when no `cdkOut` is given (default: this repository's app). */
  readonly appDir?: string;
  /** More `-c key=value` for that synth (`retrySchedule=fast` is always given). */
  readonly context?: Readonly<Record<string, string>>;
  readonly print?: (line: string) => void;
  readonly waitMs?: number;
  /** Identifies this run's processes (each container's environment carries it). */
  readonly runMarker?: string;
}

export interface RehearsalReport {
  readonly ok: boolean;
  readonly failure?: StepFailed | Error;
  readonly steps: Steps;
  readonly logDir: string;
  readonly result?: ScenarioResult;
}

const REPO = join(import.meta.dirname, '../..');

/**
 * What the rehearsal sets in a function's environment besides the template's: the connected-car
 * API is outside AWS, so its addresses point at the simulator; the webhook endpoints are on
 * loopback, which the SSRF guard refuses unless allowed; and their certificate is trusted.
 */
export function outsideAwsOverrides(sim: Pick<RehearsalSimulator, 'url'>, caFile: string) {
  return (env: Readonly<Record<string, string>>): Record<string, string> => {
    const out: Record<string, string> = { NODE_EXTRA_CA_CERTS: caFile };
    if (env[RUNTIME_ENV.apiBaseUrl] !== undefined) out[RUNTIME_ENV.apiBaseUrl] = sim.url;
    if (env[RUNTIME_ENV.authUrl] !== undefined) out[RUNTIME_ENV.authUrl] = sim.url;
    if (env[RUNTIME_ENV.tableName] !== undefined) {
      out[RUNTIME_ENV.webhookAllowHosts] = [env[RUNTIME_ENV.webhookAllowHosts], '127.0.0.1']
        .filter(Boolean)
        .join(',');
    }
    return out;
  };
}

export async function synthesize(
  appDir: string,
  outDir: string,
  context: Record<string, string>,
): Promise<void> {
  const args = [
    'synth',
    '--quiet',
    '-o',
    outDir,
    ...Object.entries(context).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
  ];
  try {
    await promisify(execFile)(join(REPO, 'node_modules/.bin/cdk'), args, {
      cwd: appDir,
      maxBuffer: 32 * 1024 * 1024,
    });
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`cdk synth in ${appDir} failed: ${(e.stderr ?? e.message).slice(-2000)}`);
  }
}

export class Rehearsal {
  private readonly cleanups: (() => Promise<void>)[] = [];
  private stopping: Promise<void> | undefined;

  constructor(private readonly options: RehearsalOptions) {}

  async run(): Promise<RehearsalReport> {
    const print = this.options.print ?? ((line: string) => console.log(line));
    const work = mkdtempSync(join(tmpdir(), 'carhook-rehearsal-'));
    const logDir = join(work, 'logs');
    const incidents: RunningDeployment['incidents'] = [];
    const steps = new Steps(incidents, print);
    let simulator: RehearsalSimulator | undefined;
    try {
      const cdkOut =
        this.options.cdkOut ??
        (await steps.run(
          `cdk synth (${Object.entries({ ...this.options.context, retrySchedule: 'fast' })
            .map(([k, v]) => `${k}=${v}`)
            .join(', ')})`,
          async () => {
            const out = join(work, 'cdk.out');
            await synthesize(this.options.appDir ?? REPO, out, {
              ...this.options.context,
              retrySchedule: 'fast',
            });
            return out;
          },
        ));
      const tls = await loopbackCertificate(work);
      const sim = await startRehearsalSimulator(7);
      simulator = sim;
      this.cleanups.push(() => sim.close());
      print(
        `  the connected-car API: the simulator at ${sim.url} (CARHOOK_API_BASE_URL and CARHOOK_AUTH_URL point there)`,
      );
      const rd = await steps.run('deploy the templates onto moto and DynamoDB Local', async () => {
        const d = await startDeployment({
          assemblyDir: cdkOut,
          runMarker: this.options.runMarker ?? String(process.pid),
          logDir,
          overrides: outsideAwsOverrides(sim, tls.certFile),
          onStep: (m) => print(`    ${m}`),
          incidents,
        });
        this.cleanups.push(() => d.stop());
        return d;
      });
      await steps.run(
        'cfn-lint on every template',
        async () => {
          if (rd.lint.unexpected.length > 0) {
            throw new Error(
              rd.lint.unexpected
                .map((f) => `${f.level} ${f.rule} ${f.path.join('/')}: ${f.message}`)
                .join('\n    '),
            );
          }
          return `${rd.lint.findings.length} finding(s), each listed with the reason it stays`;
        },
        (d) => d,
      );
      const exhaust = rd.deployment.functions.some(
        (f) => f.environment[RUNTIME_ENV.retrySchedule] === 'fast',
      );
      if (!exhaust)
        print(
          '  (the retry schedule is standard, 27.6 h: the exhausted-delivery step is left out; synthesize with -c retrySchedule=fast)',
        );
      const result = await runScenario(
        rd,
        sim,
        steps,
        { waitMs: this.options.waitMs ?? 75_000, exhaust, tls },
        this.cleanups,
      );
      await steps.run(
        'every dead-letter queue is empty',
        async () => {
          const dlqs = new Set<string>();
          for (const q of rd.deployment.queues) if (q.deadLetterArn) dlqs.add(q.deadLetterArn);
          for (const r of rd.deployment.rules)
            for (const t of r.targets) if (t.deadLetterArn) dlqs.add(t.deadLetterArn);
          for (const s of rd.deployment.schedules) if (s.deadLetterArn) dlqs.add(s.deadLetterArn);
          const full: string[] = [];
          for (const arn of dlqs) {
            const depth = await rd.queueDepth(arn);
            if (depth > 0) full.push(`${arn.split(':').at(-1)}: ${depth}`);
          }
          if (full.length > 0) throw new Error(`not empty: ${full.join(', ')}`);
          return `${dlqs.size} dead-letter queues`;
        },
        (d) => d,
      );
      await steps.run(
        'IAM: every call allowed by the role the template gives',
        async () => {
          if (rd.denials.length > 0)
            throw new Error(rd.denials.map((d) => `${d.principal}: ${d.action} on ${d.resource}`).join('; '));
          const byPrincipal = new Map<string, Set<string>>();
          for (const c of rd.gate.calls)
            for (const k of c.checks)
              (byPrincipal.get(c.principal) ?? byPrincipal.set(c.principal, new Set()).get(c.principal))?.add(
                k.action,
              );
          return [...byPrincipal]
            .map(
              ([p, actions]) =>
                `${p.replace(/^Carhook/, '').replace(/[0-9A-F]{8}$/, '')}: ${[...actions].sort().join(' ')}`,
            )
            .join('\n    ');
        },
        (d) => `${rd.gate.calls.length} AWS calls checked\n    ${d}`,
      );
      return { ok: true, steps, logDir, result };
    } catch (error) {
      return { ok: false, failure: error instanceof Error ? error : new Error(String(error)), steps, logDir };
    } finally {
      // What the connected-car API was asked, beside the functions' logs.
      if (simulator) {
        mkdirSync(logDir, { recursive: true });
        writeFileSync(
          join(logDir, 'api-requests.jsonl'),
          simulator.requests
            .map((r) => JSON.stringify({ ...r, at: new Date(r.at).toISOString() }))
            .join('\n'),
        );
      }
      await this.stop();
      print(
        `  stopped everything it started (${seconds(steps.done.reduce((n, s) => n + s.ms, 0))} of steps); function logs: ${logDir}`,
      );
    }
  }

  /** Stops whatever the run started; safe to call twice and from a signal handler. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const c of this.cleanups.splice(0).reverse()) {
        try {
          await c();
        } catch {
          // keep stopping the rest
        }
      }
    })();
    return this.stopping;
  }
}
