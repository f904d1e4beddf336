/**
 * `npm run rehearse [-- --cdk-out DIR]`: a rehearsal of `cdk deploy`. The synthesized templates are
 * deployed onto moto (an independent AWS implementation, IAM enforced) and DynamoDB Local, every
 * Lambda bundle runs as its template deploys it, and a scenario drives the whole pipeline against
 * the simulator. Exits 0 when every step passed; 1 with the failing step otherwise.
 */
import { randomUUID } from 'node:crypto';
import { Command } from 'commander';
import { MOTO_INSTALL_HINT, motoAvailable } from './rehearsal/moto';
import { Rehearsal } from './rehearsal/run';

const program = new Command('rehearse')
  .description('Rehearse a deploy of a synthesized CDK app against moto and DynamoDB Local, end to end')
  .option(
    '--cdk-out <dir>',
    'a cdk.out folder to rehearse instead of synthesizing this app (env CARHOOK_REHEARSAL_CDK_OUT)',
  )
  .option('--app <dir>', 'the CDK app to synthesize (a folder with cdk.json; default: this repository)')
  .option('-c, --context <key=value...>', 'CDK context for the synth (retrySchedule=fast is always given)')
  .option('--wait <seconds>', 'how long each change may take to arrive', (v) => Number(v), 75)
  .parse();

const opts = program.opts<{ cdkOut?: string; app?: string; wait: number; context?: string[] }>();
const context: Record<string, string> = {};
for (const pair of opts.context ?? []) {
  const at = pair.indexOf('=');
  if (at < 1) {
    console.error(`--context ${pair}: expected key=value`);
    process.exit(2);
  }
  context[pair.slice(0, at)] = pair.slice(at + 1);
}
if (!motoAvailable()) {
  console.error(
    `moto_server is not on the PATH. Install it with ${MOTO_INSTALL_HINT} (the rehearsal's AWS).`,
  );
  process.exit(2);
}
const cdkOut = opts.cdkOut ?? process.env.CARHOOK_REHEARSAL_CDK_OUT;
// Every process the rehearsal starts carries this in its environment (moto and DynamoDB Local
// inherit it), so whoever ran it can check that none is left.
process.env.CARHOOK_REHEARSAL_RUN ??= randomUUID();
const started = Date.now();
console.log(
  `Rehearsing ${cdkOut ? `the app synthesized in ${cdkOut}` : `cdk deploy of ${opts.app ?? 'this app'}`}`,
);
const rehearsal = new Rehearsal({
  ...(cdkOut ? { cdkOut } : {}),
  ...(opts.app ? { appDir: opts.app } : {}),
  context,
  waitMs: opts.wait * 1000,
  runMarker: process.env.CARHOOK_REHEARSAL_RUN,
});

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    console.log(`\n${signal}: stopping the rehearsal's processes`);
    rehearsal.stop().finally(() => process.exit(130));
  });
}

const report = await rehearsal.run();
if (interrupted) process.exit(130);
const total = ((Date.now() - started) / 1000).toFixed(1);
if (report.ok) {
  console.log(`Rehearsal passed in ${total} s.`);
} else {
  console.error(`Rehearsal failed after ${total} s: ${report.failure?.message}`);
  process.exitCode = 1;
}
