/**
 * The `carhook` commands (commander). Management commands talk to the local runtime's HTTP API with
 * the admin token, or to a deployed stack's API with SigV4 (./client.ts). `--json` prints the API's
 * JSON for scripts; errors are one line on stderr and a non-zero exit code.
 */

import { Command, CommanderError } from 'commander';
import { formatEventLine, inDetectionOrder } from '../../functions/adapters/local/bus';
import { freshnessKinds } from '../../functions/core/capacity/kinds';
import { formatDuration, parseDuration } from '../../functions/local/duration';
import { DEFAULT_WEBHOOK_ALLOW_HOSTS, LOCAL_DEFAULTS } from '../../functions/local/options';
import { FRESHNESS_TARGETS_SETTING } from '../../functions/runtime/freshness-targets';
import { DEFAULT_SETTINGS, INTEGER_SETTINGS } from '../../functions/runtime/settings';
import { addCapacityCommand } from './capacity-command';
import { CliError } from './client';
import { allPages, call, globals, out, readFileOption, show, str, table } from './common';
import { runDev } from './dev';
import { addEnrollCommands } from './enroll-commands';
import { addSubscriptionCommands } from './subscription-commands';
import { addVehicleCommands } from './vehicle-commands';
import { parseSavedRequest, verifySaved } from './verify';

export function buildProgram(): Command {
  const program = new Command('carhook')
    .description(
      'Push events from a connected-car API that can only be polled: local runtime and management CLI',
    )
    .option('--url <url>', 'Carhook HTTP API (env CARHOOK_URL; default http://127.0.0.1:8080)')
    .option('--token <token>', 'admin token of the local runtime (env CARHOOK_ADMIN_TOKEN)')
    .option('--aws', 'sign requests with your AWS credentials (SigV4), for a deployed stack')
    .option('--region <region>', 'AWS region of the deployed API (env AWS_REGION)')
    .option('--json', 'print JSON (for scripts)')
    .showSuggestionAfterError()
    // Root options go before the command (`carhook --url … subscriptions add --url …`).
    .enablePositionalOptions()
    // One line per mistake: commander puts its suggestion on a second line.
    .configureOutput({ outputError: (text, write) => write(`${text.trim().replace(/\s*\n\s*/g, ' ')}\n`) })
    .exitOverride();

  program
    .command('dev')
    .description(
      'run Carhook on this machine: DynamoDB Local, the simulator, pollers, webhooks and the HTTP API',
    )
    .option('--port <port>', `HTTP API port (default ${LOCAL_DEFAULTS.port}; 0 = any free port)`)
    .option(
      '--sim-port <port>',
      `simulator port, its control API is /_sim (default ${LOCAL_DEFAULTS.simPort})`,
    )
    .option('--vehicles <n>', `simulated vehicles (default ${LOCAL_DEFAULTS.vehicles})`)
    .option('--seed <n>', `simulator world seed (default ${LOCAL_DEFAULTS.seed})`)
    .option(
      '--poll-interval <duration>',
      `planner cadence, e.g. 2s, 500ms, 1m (default ${formatDuration(LOCAL_DEFAULTS.pollIntervalMs)})`,
    )
    .option('--data-dir <dir>', 'persist data, keys and events here (default: in memory)')
    .option(
      '--quota <n>',
      `API requests per 60 s (default ${LOCAL_DEFAULTS.simulatorQuota} with the simulator, ${DEFAULT_SETTINGS.quotaRequests} with a real API)`,
    )
    .option(
      '--quota-max <n>',
      'the highest X-RateLimit-Limit followed when the API raises the quota (default: never past --quota)',
    )
    .option(
      '--poll-concurrency <n>',
      `poll jobs run at once, 1 to 64 (default ${LOCAL_DEFAULTS.pollConcurrency})`,
    )
    .option(
      '--poll-strategy <name>',
      `carhook, round-robin or naive (default ${DEFAULT_SETTINGS.pollStrategy})`,
    )
    .option(
      '--services-interval <duration>',
      `how often vehicle services are read, e.g. 30s, 10m (default ${formatDuration(DEFAULT_SETTINGS.servicesIntervalSeconds * 1000)}; env ${INTEGER_SETTINGS.servicesIntervalSeconds.names.env})`,
    )
    .option(
      '--map-interval <duration>',
      `how often map updates are read, in bulk (default ${formatDuration(DEFAULT_SETTINGS.mapIntervalSeconds * 1000)}; env ${INTEGER_SETTINGS.mapIntervalSeconds.names.env})`,
    )
    .option(
      '--silence-after <duration>',
      `vehicle.reporting.stopped when a vehicle's records stop advancing this long, until learned from its own history (default ${formatDuration(DEFAULT_SETTINGS.silenceAfterSeconds * 1000)}; env ${INTEGER_SETTINGS.silenceAfterSeconds.names.env})`,
    )
    .option(
      '--freshness-targets <list>',
      `the p95 lag each kind of change should stay within, e.g. alerts=5m,maintenance=1h (kinds: ${freshnessKinds.join(', ')}; default none; env ${FRESHNESS_TARGETS_SETTING.names.env})`,
    )
    .option(
      '--retry-schedule <name>',
      `webhook retries: standard (about 27.6 h, disable after 5 days failing) or fast (about 40 s, disable after 2 min failing); default ${DEFAULT_SETTINGS.retrySchedule}; env CARHOOK_RETRY_SCHEDULE`,
    )
    .option(
      '--demo',
      'also start a verifying receiver subscribed to everything, and make the simulator raise and fix alerts',
    )
    .option(
      '--clock <clock>',
      "wall (default) or simulated: the simulator's clock, moved only by POST /_sim/clock/advance, each advance running a poll cycle and every job and delivery due before it answers (for tests and demos)",
    )
    .option('--demo-every <duration>', 'pace of the demo script (default 10s)')
    .option(
      '--api-base-url <url>',
      'a real Connected Car API instead of the simulator (with --auth-base-url)',
    )
    .option('--auth-base-url <url>', 'the real API’s OAuth base URL')
    .option('--brands <list>', 'brand path segments of the real API, comma-separated')
    .option(
      '--api-credentials <file>',
      'JSON {clientId, clientSecret} of the real API (default env CARHOOK_API_CLIENT)',
    )
    .option(
      '--map-credentials <file>',
      'JSON {username, password} of the real map API (default env CARHOOK_MAP_API; without them map updates are not polled)',
    )
    .option('--jsonl <file>', 'append events here (default <data-dir>/events.jsonl or a temp file)')
    .option(
      '--allow-webhook-host <host>',
      `where webhooks may go besides the public internet: IP, CIDR, hostname or *.suffix; repeat it (default: ${DEFAULT_WEBHOOK_ALLOW_HOSTS.join(', ')}; env CARHOOK_WEBHOOK_ALLOW_HOSTS, comma-separated). Carhook’s own ports are always refused`,
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .action(async (flags) => {
      process.exitCode = await runDev(flags, { out: process.stdout, err: process.stderr });
    });

  program
    .command('sim')
    .description('run the Connected Car API simulator alone (its own flags: carhook sim --help)')
    .allowUnknownOption()
    .helpOption(false)
    .argument('[args...]')
    .action(async (args: string[]) => {
      process.argv = [process.argv[0] ?? 'node', 'carhook-sim', ...args];
      await import('../../sim/main');
    });

  addEnrollCommands(program);
  addSubscriptionCommands(program);
  addVehicleCommands(program);
  addCapacityCommand(program);

  const events = program.command('events').description('the event log');
  events
    .command('get')
    .description('one event: its envelope, its vehicle, and its delivery to each subscription')
    .argument('<id>', 'event id (evt_…)')
    .action(async (id: string, _o: unknown, command: Command) => {
      const r = await call(command, 'GET /events/{id}', { params: { id } });
      const { event: e, deliveries } = r.body;
      show(command, r.body, () =>
        [
          `event ${e.id} ${e.type} v${e.schemaVersion}, occurred ${e.occurredAt}, detected ${e.detectedAt}`,
          ...(e.vehicle
            ? [
                `  vehicle ${e.vehicle.id}${e.vehicle.vin ? ` (VIN ${e.vehicle.vin})` : ''}, sequence ${e.sequence}`,
              ]
            : []),
          ...(e.enrollment ? [`  enrollment ${e.enrollment.id} (${e.enrollment.kind})`] : []),
          `  data ${JSON.stringify(e.data)}`,
          deliveries.length === 0
            ? '  no delivery (no subscription matched it)'
            : table([
                ['SUBSCRIPTION', 'URL', 'STATUS', 'ATTEMPTS', 'LAST'],
                ...deliveries.map((d) => [
                  d.subscriptionId,
                  d.url,
                  d.delivery.status,
                  String(d.delivery.attempts),
                  str(d.delivery.lastStatusCode ?? d.delivery.lastError),
                ]),
              ]),
        ].join('\n'),
      );
    });
  events
    .command('types')
    .description(
      'the event catalogue: each type, what triggers it and its worst-case delay (--type: one, with its sample)',
    )
    .option('--type <type>', 'one type in full: trigger, reads, delay and a sample')
    .action(async (o: { type?: string }, command: Command) => {
      const r = await call(command, 'GET /event-types');
      const types = r.body.types.filter((t) => o.type === undefined || t.type === o.type);
      if (types.length === 0)
        throw new CliError('Usage', `--type: "${o.type}" is not an event type (carhook events types)`);
      show(command, o.type ? types[0] : r.body, () =>
        o.type
          ? types
              .map((t) =>
                [
                  `${t.type} (version ${t.version}${t.audience === 'opt-in' ? ', sent only to subscriptions that name it' : ''})`,
                  `  ${t.description}`,
                  `  trigger  ${t.trigger}`,
                  `  reads    ${t.reads}`,
                  `  delay    ${t.delay}`,
                  '  sample',
                  ...JSON.stringify(t.sample ?? null, null, 2)
                    .split('\n')
                    .map((l) => `    ${l}`),
                ].join('\n'),
              )
              .join('\n')
          : table([['TYPE', 'TRIGGER'], ...types.map((t) => [t.type, t.trigger])]),
      );
    });
  events
    .command('tail')
    .description('print events as they are detected (polls GET /events)')
    .option('--type <types>', 'only these types, comma-separated')
    .option('--vehicle <id>', 'only this vehicle')
    .option('--since <duration>', 'start this long ago (default 5m)', '5m')
    .option('--every <duration>', 'poll the API this often (default 2s)', '2s')
    .option('--once', 'print what there is and exit')
    .action(
      async (
        o: { type?: string; vehicle?: string; since: string; every: string; once?: boolean },
        command: Command,
      ) => {
        const since = parseDuration('--since', o.since, { minMs: 0, maxMs: 30 * 86_400_000 });
        if (!since.ok) throw new CliError('Usage', since.message);
        const every = parseDuration('--every', o.every, { minMs: 200, maxMs: 3_600_000 });
        if (!every.ok) throw new CliError('Usage', every.message);
        const seen = new Set<string>();
        let from = new Date(Date.now() - since.value).toISOString();
        const json = globals(command).json === true;
        for (;;) {
          const items = await allPages(command, 'GET /events', (p) => p.events, {
            query: { type: o.type, vehicleId: o.vehicle, since: from },
          });
          for (const e of inDetectionOrder(items)) {
            const id = e.id;
            if (seen.has(id)) continue;
            seen.add(id);
            out(json ? JSON.stringify(e) : formatEventLine(e).trimEnd());
          }
          if (o.once) return;
          // Overlap a little: detection time, not occurrence, is what the log orders by.
          from = new Date(Date.now() - 60_000).toISOString();
          await new Promise((r) => setTimeout(r, every.value));
        }
      },
    );

  program
    .command('metrics')
    .description('quota use and detection lag, minute by minute (GET /metrics/recent; the local runtime)')
    .action(async (_o: unknown, command: Command) => {
      const r = await call(command, 'GET /metrics/recent');
      const body = r.body;
      show(command, body, () => {
        const rows = body.minutes.map((m) => [
          m.minute.slice(11, 16),
          String(m.apiRequests),
          String(m.apiRateLimited),
          String(m.eventsPublished),
          `${m.deliveriesSucceeded}/${m.deliveriesFailed}`,
          m.lagMs.p95 === undefined ? '-' : `${Math.round(m.lagMs.p95 / 1000)} s`,
          String(m.historyFound),
        ]);
        return `quota ${body.quota.limit} requests per ${body.quota.windowSeconds} s\n${table([
          ['minute', 'requests', '429', 'events', 'delivered/failed', 'lag p95', 'history'],
          ...rows,
        ])}\nminutes of detection; lag: from when a change occurred to when it was detected; history: what a first poll found already there (an alert active since last year), not a lag`;
      });
    });

  program
    .command('receiver')
    .description('a local webhook endpoint that verifies signatures and prints what it gets')
    .requiredOption('--secret <secret>', 'the subscription secret (whsec_…)')
    .option('--port <port>', 'port', '9000')
    .option('--path <path>', 'path', '/webhooks')
    .action(async (o: { secret: string; port: string; path: string }) => {
      const { startReceiver } = await import('../../functions/local/receiver');
      if (!/^\d+$/.test(o.port) || Number(o.port) > 65535)
        throw new CliError('Usage', `--port: "${o.port}" must be 0 to 65535`);
      if (!o.secret.startsWith('whsec_'))
        throw new CliError('Usage', '--secret: must be a subscription secret (whsec_…)');
      const receiver = await startReceiver({ port: Number(o.port), secret: o.secret, path: o.path });
      out(`receiver listening on ${receiver.url}   Ctrl-C to stop`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await receiver.close();
    });

  program
    .command('verify')
    .description('check a saved webhook request against a secret')
    .requiredOption('--secret <secret>', 'the subscription secret (whsec_…)')
    .requiredOption(
      '--file <file>',
      'the saved request: JSON {headers, body} or raw HTTP (headers, blank line, body)',
    )
    .option('--ignore-timestamp', 'accept an old timestamp (a saved request is usually older than 5 minutes)')
    .action(async (o: { secret: string; file: string; ignoreTimestamp?: boolean }, command: Command) => {
      const text = await readFileOption('--file', o.file);
      const saved = parseSavedRequest(text);
      if (!saved.ok) throw new CliError('Usage', `--file: ${saved.message}`);
      const r = verifySaved(saved.value, o.secret, o.ignoreTimestamp === true);
      show(command, r, () =>
        r.valid ? `valid: webhook ${r.id} signed with this secret` : `INVALID: ${r.reason}`,
      );
      if (!r.valid) process.exitCode = 1;
    });

  // `--json` is accepted after any command too (`carhook subscriptions list --json`).
  const addJson = (command: Command) => {
    if (command.commands.length === 0 && !['dev', 'sim', 'receiver'].includes(command.name()))
      command.option('--json', 'print JSON');
    for (const sub of command.commands) addJson(sub);
  };
  for (const command of program.commands) addJson(command);
  return program;
}

/** Parses and runs; every failure is one line on stderr. */
export async function runProgram(program: Command, argv: readonly string[]): Promise<void> {
  try {
    await program.parseAsync([...argv]);
  } catch (error) {
    if (error instanceof CommanderError) {
      // commander already printed its one line (or the help).
      process.exitCode = error.exitCode;
      return;
    }
    if (error instanceof CliError) {
      process.stderr.write(`carhook: ${error.message}\n`);
      process.exitCode = error.kind === 'Usage' ? 2 : 1;
      return;
    }
    process.stderr.write(`carhook: ${(error as Error)?.message ?? String(error)}\n`);
    process.exitCode = 1;
  }
}
