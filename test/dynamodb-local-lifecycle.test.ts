import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';

const launcher = `
import { startDynamoDbLocal } from './functions/adapters/local/dynamodb-local.ts';
const db = await startDynamoDbLocal();
console.log(db.port);
process.exit(0); // dies without calling stop()
`;

function javaListeningOn(port: string): boolean {
  try {
    const out = execFileSync('pgrep', ['-f', `DynamoDBLocal.*-port ${port}`], { encoding: 'utf8' });
    return out.trim().length > 0;
  } catch {
    return false; // pgrep exits 1 when nothing matches
  }
}

describe('DynamoDB Local launcher', () => {
  it('leaves no orphan JVM when the process that started it exits without stopping it', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', launcher], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    await once(child, 'exit');
    const port = out.trim();
    expect(port).toMatch(/^\d+$/);
    // The JVM gets SIGKILL from the parent's exit hook; give the kernel a moment to reap it.
    for (let i = 0; i < 50 && javaListeningOn(port); i++) await new Promise((r) => setTimeout(r, 100));
    expect(javaListeningOn(port)).toBe(false);
  }, 60_000);
});
