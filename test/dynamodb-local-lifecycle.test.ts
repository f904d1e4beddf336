import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';

/** A node process that starts DynamoDB Local, prints the JVM's pid, then dies as told. */
const launcher = (death: string) => `
import { startDynamoDbLocal } from './functions/adapters/local/dynamodb-local.ts';
const db = await startDynamoDbLocal();
console.log(db.pid);
${death}
`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function jvmOutlives(death: string): Promise<boolean> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', launcher(death)], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  await once(child, 'exit');
  const pid = Number(out.trim());
  expect(pid).toBeGreaterThan(0);
  // The JVM notices its standard input closing; give it a few seconds to exit and be reaped.
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  return alive(pid);
}

describe('DynamoDB Local launcher', () => {
  it('leaves no JVM behind when the process that started it exits without stopping it', async () => {
    expect(await jvmOutlives('process.exit(0);')).toBe(false);
  }, 60_000);

  it('leaves no JVM behind when the process that started it is killed with SIGKILL', async () => {
    expect(await jvmOutlives("process.kill(process.pid, 'SIGKILL');")).toBe(false);
  }, 60_000);
});
