/**
 * `carhook dev`: flags → `startLocalRuntime` options (every bad flag is one line naming it), the
 * banner, `--demo`, and a clean shutdown on Ctrl-C / SIGTERM.
 */

import { parseRetrySchedule } from '../../functions/core/delivery/retry-schedule';
import type { PollStrategy } from '../../functions/core/polling/config';
import { compileAllowList, parseAllowEntries } from '../../functions/core/webhooks/ssrf';
import { formatDuration, parseDuration, parseInteger } from '../../functions/local/duration';
import { LocalRuntimeError } from '../../functions/local/errors';
import type { LocalRuntimeOptions } from '../../functions/local/runtime';
import { FRESHNESS_TARGETS_SETTING, parseFreshnessTargets } from '../../functions/runtime/freshness-targets';
import {
  CHOICE_SETTINGS,
  INTEGER_SETTINGS,
  type IntegerSetting,
  settingFromEnv,
} from '../../functions/runtime/settings';

export interface DevFlags {
  readonly port?: string;
  readonly simPort?: string;
  readonly vehicles?: string;
  readonly seed?: string;
  readonly pollInterval?: string;
  readonly dataDir?: string;
  readonly quota?: string;
  readonly quotaMax?: string;
  readonly pollConcurrency?: string;
  readonly pollStrategy?: string;
  readonly servicesInterval?: string;
  readonly mapInterval?: string;
  readonly silenceAfter?: string;
  readonly freshnessTargets?: string;
  readonly retrySchedule?: string;
  readonly demo?: boolean;
  readonly demoEvery?: string;
  readonly apiBaseUrl?: string;
  readonly authBaseUrl?: string;
  readonly brands?: string;
  readonly apiCredentials?: string;
  readonly mapCredentials?: string;
  readonly jsonl?: string;
  /** `--allow-webhook-host`, repeatable. */
  readonly allowWebhookHost?: readonly string[];
  /** `wall` (default) or `simulated`. */
  readonly clock?: string;
}

export interface DevSettings {
  readonly runtime: LocalRuntimeOptions;
  readonly demo: boolean;
  readonly demoEveryMs: number;
  readonly generatedToken: boolean;
}

const BRAND = /^[a-z0-9][a-z0-9-]{0,63}$/;

function bad(message: string, field: string): never {
  throw new LocalRuntimeError('InvalidOption', message, field);
}

function integerFlag(flag: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const r = parseInteger(flag, raw, { min, max });
  if (!r.ok) bad(r.message, flag);
  return r.value;
}

function urlFlag(flag: string, raw: string): string {
  try {
    const url = new URL(raw);
    if (url.protocol === 'http:' || url.protocol === 'https:') return raw.replace(/\/$/, '');
  } catch {
    // reported below
  }
  return bad(`${flag}: "${raw}" must be an absolute http(s) URL`, flag);
}

/** Validates every flag; throws `LocalRuntimeError('InvalidOption')` naming the first bad one. */
export function devSettings(flags: DevFlags, env: Readonly<Record<string, string | undefined>>): DevSettings {
  const port = integerFlag('--port', flags.port, 0, 65535);
  const simPort = integerFlag('--sim-port', flags.simPort, 0, 65535);
  const vehicles = integerFlag('--vehicles', flags.vehicles, 1, 10_000);
  const seed = integerFlag('--seed', flags.seed, 0, 2 ** 32 - 1);
  const quotaBounds = INTEGER_SETTINGS.quotaRequests;
  const quota = integerFlag('--quota', flags.quota, quotaBounds.min, quotaBounds.max);
  const maxBounds = INTEGER_SETTINGS.quotaMaxRequests;
  const quotaMax = integerFlag('--quota-max', flags.quotaMax, maxBounds.min, maxBounds.max);
  const targetsEnv = FRESHNESS_TARGETS_SETTING.names.env;
  const targetsFrom = flags.freshnessTargets !== undefined ? '--freshness-targets' : targetsEnv;
  const targets = parseFreshnessTargets(flags.freshnessTargets ?? env[targetsEnv]);
  if (!targets.ok) bad(`${targetsFrom}: ${targets.field}: ${targets.message}`, targetsFrom);
  const pollConcurrency = integerFlag('--poll-concurrency', flags.pollConcurrency, 1, 64);
  const pollStrategy = flags.pollStrategy;
  const strategies: readonly string[] = CHOICE_SETTINGS.pollStrategy.values;
  if (pollStrategy !== undefined && !strategies.includes(pollStrategy)) {
    bad(`--poll-strategy: must be one of ${strategies.join(', ')}, got '${pollStrategy}'`, '--poll-strategy');
  }
  let pollIntervalMs: number | undefined;
  if (flags.pollInterval !== undefined) {
    const r = parseDuration('--poll-interval', flags.pollInterval, { minMs: 200, maxMs: 86_400_000 });
    if (!r.ok) bad(r.message, '--poll-interval');
    pollIntervalMs = r.value;
  }
  // A flag wins over its variable (read as the Lambda runtime reads it); each names itself in its error.
  const cadence = (
    setting: Extract<
      IntegerSetting,
      'servicesIntervalSeconds' | 'mapIntervalSeconds' | 'silenceAfterSeconds'
    >,
    raw: string | undefined,
  ): number | undefined => {
    const { names, min, max } = INTEGER_SETTINGS[setting];
    if (raw !== undefined) {
      const r = parseDuration(names.flag, raw, { minMs: min * 1000, maxMs: max * 1000 });
      if (!r.ok) bad(r.message, names.flag);
      return r.value;
    }
    const fromEnv = settingFromEnv(setting, env);
    if (!fromEnv.ok) bad(`${names.env}: ${fromEnv.message}`, names.env);
    return fromEnv.set ? fromEnv.value * 1000 : undefined;
  };
  const servicesIntervalMs = cadence('servicesIntervalSeconds', flags.servicesInterval);
  const mapIntervalMs = cadence('mapIntervalSeconds', flags.mapInterval);
  const silenceAfterMs = cadence('silenceAfterSeconds', flags.silenceAfter);
  const scheduleNames = CHOICE_SETTINGS.retrySchedule.names;
  const scheduleField = flags.retrySchedule !== undefined ? scheduleNames.flag : scheduleNames.env;
  const schedule = parseRetrySchedule(scheduleField, flags.retrySchedule ?? env[scheduleNames.env]);
  if (!schedule.ok) bad(schedule.message, scheduleField);
  let demoEveryMs = 10_000;
  if (flags.demoEvery !== undefined) {
    const r = parseDuration('--demo-every', flags.demoEvery, { minMs: 500, maxMs: 3_600_000 });
    if (!r.ok) bad(r.message, '--demo-every');
    demoEveryMs = r.value;
  }
  if ((flags.apiBaseUrl === undefined) !== (flags.authBaseUrl === undefined)) {
    bad(
      '--api-base-url and --auth-base-url go together (a real API needs both; neither runs the simulator)',
      flags.apiBaseUrl ? '--auth-base-url' : '--api-base-url',
    );
  }
  let api: LocalRuntimeOptions['api'];
  if (flags.apiBaseUrl !== undefined && flags.authBaseUrl !== undefined) {
    if (flags.demo) bad('--demo drives the simulator: it cannot be used with --api-base-url', '--demo');
    const brands = (flags.brands ?? '')
      .split(',')
      .map((b) => b.trim())
      .filter((b) => b !== '');
    if (brands.length === 0)
      bad('--brands: a real API needs its brand path segments, e.g. --brands cielo,pavo', '--brands');
    const badBrand = brands.find((b) => !BRAND.test(b));
    if (badBrand !== undefined)
      bad(`--brands: "${badBrand}" is not a brand path segment (lower-case letters, digits, -)`, '--brands');
    api = {
      baseUrl: urlFlag('--api-base-url', flags.apiBaseUrl),
      authUrl: urlFlag('--auth-base-url', flags.authBaseUrl),
      brands,
      credentialsFile: flags.apiCredentials || undefined,
      mapCredentialsFile: flags.mapCredentials || undefined,
    };
  }
  if (flags.clock !== undefined && flags.clock !== 'wall' && flags.clock !== 'simulated')
    bad(`--clock: must be wall or simulated, got '${flags.clock}'`, '--clock');
  if (flags.clock === 'simulated' && api)
    bad("--clock simulated runs on the simulator's clock: it cannot be used with --api-base-url", '--clock');
  if (flags.clock === 'simulated' && flags.demo)
    bad('--demo paces itself on the wall clock: it cannot be used with --clock simulated', '--demo');
  if (flags.dataDir !== undefined && flags.dataDir.trim() === '')
    bad('--data-dir: must not be empty', '--data-dir');
  const adminToken = env.CARHOOK_ADMIN_TOKEN?.trim() || undefined;
  if (adminToken !== undefined && adminToken.length < 16) {
    bad(
      'CARHOOK_ADMIN_TOKEN: must be at least 16 characters (or unset it to have one generated)',
      'CARHOOK_ADMIN_TOKEN',
    );
  }
  const allowHosts =
    flags.allowWebhookHost && flags.allowWebhookHost.length > 0
      ? flags.allowWebhookHost
      : env.CARHOOK_WEBHOOK_ALLOW_HOSTS?.trim()
        ? env.CARHOOK_WEBHOOK_ALLOW_HOSTS.split(',')
        : undefined;
  const allowHostsFlag = flags.allowWebhookHost?.length
    ? '--allow-webhook-host'
    : 'CARHOOK_WEBHOOK_ALLOW_HOSTS';
  const allowList = allowHosts
    ? compileAllowList(parseAllowEntries(allowHosts.map((h) => h.trim()).filter((h) => h !== '')))
    : undefined;
  if (allowList && !allowList.ok) {
    bad(
      `${allowHostsFlag}: "${allowList.error.value}" is not an IP address, CIDR, hostname or *.suffix`,
      allowHostsFlag,
    );
  }
  // Unset options stay undefined: the runtime applies its defaults to each (`??`).
  return {
    runtime: {
      port,
      simPort,
      vehicles,
      seed,
      quota,
      quotaMax,
      pollConcurrency,
      pollStrategy: pollStrategy as PollStrategy | undefined,
      pollIntervalMs,
      servicesIntervalMs,
      mapIntervalMs,
      silenceAfterMs,
      ...(targets.ok ? { freshnessTargets: targets.value } : {}),
      retrySchedule: schedule.value,
      webhookAllowHosts: allowHosts?.map((h) => h.trim()).filter((h) => h !== ''),
      dataDir: flags.dataDir,
      jsonlPath: flags.jsonl,
      api,
      adminToken,
      clock: flags.clock === 'simulated' ? 'simulated' : undefined,
      env,
    },
    demo: flags.demo === true,
    demoEveryMs,
    generatedToken: adminToken === undefined,
  };
}

/** Runs until SIGINT/SIGTERM; resolves with the exit code. */
export async function runDev(
  flags: DevFlags,
  io: { out: NodeJS.WritableStream; err: NodeJS.WritableStream },
): Promise<number> {
  const fail = (error: unknown): number => {
    if (error instanceof LocalRuntimeError) {
      io.err.write(`carhook dev: ${error.message}\n`);
      return error.kind === 'InvalidOption' ? 2 : 1;
    }
    io.err.write(`carhook dev: ${(error as Error)?.message ?? String(error)}\n`);
    return 1;
  };
  let settings: DevSettings;
  try {
    settings = devSettings(flags, process.env);
  } catch (error) {
    return fail(error);
  }
  // Loaded only now: `carhook --help` and flag errors stay instant.
  const { banner, startLocalRuntime } = await import('../../functions/local/runtime');
  const { startDemo } = await import('../../functions/local/demo');

  // A signal during start-up interrupts it: the start stops at its next step (at once while DynamoDB
  // Local boots) and stops what it had started; a second signal exits at once.
  let signalled = false;
  let started = false;
  const starting = new AbortController();
  let wake: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    wake = resolve;
  });
  const onSignal = () => {
    if (signalled) {
      io.err.write('carhook dev: forced exit\n');
      process.exit(130);
    }
    signalled = true;
    if (!starting.signal.aborted && !started)
      io.out.write('\ncarhook dev: interrupted: stopping the start-up…\n');
    starting.abort();
    wake();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A closed terminal: the same clean stop (DynamoDB Local also exits on its own when this
  // process dies, whatever the way).
  process.on('SIGHUP', onSignal);

  io.out.write('carhook dev: starting DynamoDB Local, the simulator and the workers…\n');
  let rt: Awaited<ReturnType<typeof startLocalRuntime>>;
  try {
    rt = await startLocalRuntime({
      ...settings.runtime,
      out: io.out,
      err: io.err,
      signal: starting.signal,
    });
  } catch (error) {
    if (error instanceof LocalRuntimeError && error.kind === 'Interrupted') {
      io.out.write('carhook dev: stopped during start-up (nothing left running)\n');
      return 0;
    }
    return fail(error);
  }
  started = true;
  if (signalled) {
    // Interrupted after the last step of the start: stop what it started.
    await rt.close();
    io.out.write('carhook dev: stopped during start-up (nothing left running)\n');
    return 0;
  }
  let demo: Awaited<ReturnType<typeof startDemo>> | undefined;
  if (settings.demo && !signalled) {
    try {
      demo = await startDemo(rt, { everyMs: settings.demoEveryMs, out: io.out });
    } catch (error) {
      await rt.close();
      return fail(error);
    }
  }
  io.out.write(
    banner(rt, {
      generatedToken: settings.generatedToken,
      ...(demo ? { receiverUrl: demo.receiver.url } : {}),
    }),
  );
  if (demo)
    io.out.write(
      `  demo: raising and fixing simulator alerts every ${formatDuration(settings.demoEveryMs)}\n\n`,
    );

  await stopped;
  io.out.write(
    '\ncarhook dev: stopping (in-flight polls and deliveries finish; queued work stays queued)…\n',
  );
  await demo?.stop();
  await rt.close();
  io.out.write('carhook dev: stopped\n');
  return 0;
}
