import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RetrySchedule } from '../../functions/core/delivery/retry-schedule';
import { type RunningReceiver, startReceiver } from '../../functions/local/receiver';
import { type LocalRuntime, startLocalRuntime } from '../../functions/local/runtime';

/**
 * What the CLI tests run the commands against: a local runtime started in this process (DynamoDB
 * Local, simulator, HTTP API on free ports; polls rare, so only the tests' own actions happen),
 * a webhook receiver, and a scratch directory.
 */
export interface CliWorld {
  readonly rt: LocalRuntime;
  readonly receiver: RunningReceiver;
  readonly dir: string;
  close(): Promise<void>;
}

export async function startCliWorld(
  adminToken: string,
  prefix: string,
  options: { readonly clock?: 'wall' | 'simulated'; readonly retrySchedule?: RetrySchedule } = {},
): Promise<CliWorld> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const rt = await startLocalRuntime({
    port: 0,
    simPort: 0,
    vehicles: 2,
    pollIntervalMs: 60_000,
    adminToken,
    jsonlPath: join(dir, 'events.jsonl'),
    out: null,
    err: null,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.retrySchedule ? { retrySchedule: options.retrySchedule } : {}),
  });
  const receiver = await startReceiver({ port: 0, out: null });
  return {
    rt,
    receiver,
    dir,
    async close() {
      await receiver.close();
      await rt.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
