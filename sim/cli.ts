/** Command-line options of `npm run sim` (parsed without a library, to control every error line). */
export const USAGE = `Usage: npm run sim -- [options]
  --port N           TCP port (default 4010; 0 = any free port)
  --host H           interface to bind (default 127.0.0.1)
  --vehicles N       number of vehicles, 1..100000 (default 20)
  --seed N           world seed (default 1)
  --activity         background activity: vehicles drive, raise and fix alerts
  --quota N          requests per window and client (default 120)
  --quota-window S   window of the quota, seconds (default 60)
  --token-ttl S      access token lifetime, seconds (default 3600)
  --clock MODE       real (default) or manual (advance with POST /_sim/clock/advance)
  --help             this text`;

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

function integer(flag: string, raw: string | undefined, min: number, max: number): number | string {
  if (raw === undefined || raw.startsWith('--')) return `${flag} needs a value`;
  if (!/^-?\d+$/.test(raw)) return `${flag} must be an integer, got '${raw}'`;
  const n = Number(raw);
  if (n < min || n > max) return `${flag} must be between ${min} and ${max}, got ${n}`;
  return n;
}

export function parseArgs(argv: readonly string[]): CliParse {
  const o: CliOptions = {
    port: 4010,
    host: '127.0.0.1',
    vehicles: 20,
    seed: 1,
    activity: false,
    quota: 120,
    quotaWindow: 60,
    tokenTtl: 3600,
    clock: 'real',
    help: false,
  };
  const numeric: Record<string, [keyof CliOptions, number, number]> = {
    '--port': ['port', 0, 65535],
    '--vehicles': ['vehicles', 1, 100_000],
    '--seed': ['seed', 0, 2 ** 32 - 1],
    '--quota': ['quota', 1, 1_000_000],
    '--quota-window': ['quotaWindow', 1, 86_400],
    '--token-ttl': ['tokenTtl', 1, 30 * 86_400],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] = arg.includes('=')
      ? (arg.split(/=(.*)/s, 2) as [string, string])
      : [arg, undefined];
    const spec = numeric[flag];
    if (spec) {
      const raw = inline ?? argv[++i];
      const n = integer(flag, raw, spec[1], spec[2]);
      if (typeof n === 'string') return { ok: false, message: n };
      (o as unknown as Record<string, number>)[spec[0]] = n;
    } else if (flag === '--host') {
      const raw = inline ?? argv[++i];
      if (!raw || raw.startsWith('--')) return { ok: false, message: '--host needs a value' };
      o.host = raw;
    } else if (flag === '--clock') {
      const raw = inline ?? argv[++i];
      if (raw !== 'real' && raw !== 'manual')
        return { ok: false, message: `--clock must be real or manual, got '${raw ?? ''}'` };
      o.clock = raw;
    } else if (flag === '--activity') o.activity = true;
    else if (flag === '--help' || flag === '-h') o.help = true;
    else return { ok: false, message: `unknown option '${arg}' (see --help)` };
  }
  return { ok: true, value: o };
}
