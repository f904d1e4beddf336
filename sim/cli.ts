/** Command-line options of `npm run sim`, parsed with commander (as the `carhook` CLI is). */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';

export interface CliOptions {
  port: number;
  host: string;
  vehicles: number;
  seed: number;
  activity: boolean;
  quota: number;
  quotaWindow: number;
  tokenTtl: number;
  clock: 'real' | 'manual';
  help: boolean;
}

export type CliParse = { ok: true; value: CliOptions } | { ok: false; message: string };

/** An integer flag value in [min, max]; anything else is refused with one line naming the flag. */
const integer =
  (flag: string, min: number, max: number) =>
  (raw: string): number => {
    if (!/^-?\d+$/.test(raw)) throw new InvalidArgumentError(`${flag} must be an integer, got '${raw}'`);
    const n = Number(raw);
    if (n < min || n > max)
      throw new InvalidArgumentError(`${flag} must be between ${min} and ${max}, got ${n}`);
    return n;
  };

const clockMode = (raw: string): 'real' | 'manual' => {
  if (raw !== 'real' && raw !== 'manual')
    throw new InvalidArgumentError(`--clock must be real or manual, got '${raw}'`);
  return raw;
};

function program(): Command {
  const int = (flags: string, description: string, min: number, max: number, value: number): Option =>
    new Option(flags, description).argParser(integer(flags.split(' ')[0] as string, min, max)).default(value);
  return new Command('npm run sim --')
    .description('The Connected Car API simulator')
    .addOption(int('--port <n>', 'TCP port (0 = any free port)', 0, 65535, 4010))
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .addOption(int('--vehicles <n>', 'number of vehicles, 1..100000', 1, 100_000, 20))
    .addOption(int('--seed <n>', 'world seed', 0, 2 ** 32 - 1, 1))
    .option('--activity', 'background activity: vehicles drive, raise and fix alerts', false)
    .addOption(int('--quota <n>', 'requests per window and client', 1, 1_000_000, 120))
    .addOption(int('--quota-window <s>', 'window of the quota, seconds', 1, 86_400, 60))
    .addOption(int('--token-ttl <s>', 'access token lifetime, seconds', 1, 30 * 86_400, 3600))
    .addOption(
      new Option('--clock <mode>', 'real, or manual (advance with POST /_sim/clock/advance)')
        .argParser(clockMode)
        .default('real'),
    )
    .helpOption('-h, --help', 'this text')
    .allowExcessArguments(false)
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} });
}

/** The help text (`--help`). */
export const USAGE = program().helpInformation().trimEnd();

export function parseArgs(argv: readonly string[]): CliParse {
  const cmd = program();
  try {
    cmd.parse([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError && error.code === 'commander.helpDisplayed') {
      return { ok: true, value: { ...(cmd.opts() as Omit<CliOptions, 'help'>), help: true } };
    }
    // One line: commander's message without its `error: ` prefix.
    const message =
      error instanceof Error ? error.message.replace(/^error: /, '').split('\n')[0] : String(error);
    return { ok: false, message: message ?? '' };
  }
  return { ok: true, value: { ...(cmd.opts() as Omit<CliOptions, 'help'>), help: false } };
}
