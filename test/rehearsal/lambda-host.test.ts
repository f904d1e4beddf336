import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FunctionHost } from '../../bin/rehearsal/lambda-host';
import type { RehearsedFunction } from '../../bin/rehearsal/model';
import { tempDir } from './support';

const hosts: FunctionHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.stop()));
});

/** A function whose bundle is `code` (an ES module), as the rehearsal would host it. */
function hostOf(code: string, fn: Partial<RehearsedFunction> = {}) {
  const codeDir = tempDir('carhook-lambda-');
  mkdirSync(codeDir, { recursive: true });
  writeFileSync(join(codeDir, 'index.mjs'), code);
  const logs: string[] = [];
  const host = new FunctionHost(
    {
      logicalId: 'Fn',
      stack: 'S',
      name: 'S-Fn-ABC',
      arn: 'arn:aws:lambda:eu-west-1:123456789012:function:S-Fn-ABC',
      roleArn: 'arn:aws:iam::123456789012:role/r',
      handler: 'index.handler',
      runtime: 'nodejs22.x',
      timeoutSeconds: 3,
      memoryMb: 256,
      environment: { FROM_TEMPLATE: 'yes', API: 'https://api.example.com' },
      codeDir,
      tracing: false,
      logFormat: 'JSON',
      ...fn,
    },
    {
      credentials: { accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token' },
      region: 'eu-west-1',
      awsEndpoint: 'http://127.0.0.1:9',
      overrides: { API: 'http://127.0.0.1:4010' },
      runMarker: 'lambda-host-test',
      onLog: (_f, line) => logs.push(line),
    },
  );
  hosts.push(host);
  return { host, logs };
}

describe('a Lambda container of the rehearsal', () => {
  it("runs the handler with the template's environment, Lambda's variables and the caller's overrides only", async () => {
    const { host } = hostOf(
      `export const handler = async (event, context) => ({ event, name: context.functionName, left: context.getRemainingTimeInMillis() > 0,
        env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !['PATH', 'NODE_EXTRA_CA_CERTS'].includes(k) && !k.startsWith('NODE_') && !k.startsWith('_X_AMZN'))) });`,
    );
    const outcome = await host.invoke({ hello: 1 });
    expect(outcome).toMatchObject({ ok: true, cold: true });
    const value = (
      outcome as { value: { event: unknown; name: string; left: boolean; env: Record<string, string> } }
    ).value;
    expect(value.event).toEqual({ hello: 1 });
    expect(value.name).toBe('S-Fn-ABC');
    expect(value.left).toBe(true);
    expect(value.env).toMatchObject({
      FROM_TEMPLATE: 'yes',
      API: 'http://127.0.0.1:4010',
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE',
      AWS_SESSION_TOKEN: 'token',
      AWS_LAMBDA_FUNCTION_NAME: 'S-Fn-ABC',
      AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
      AWS_LAMBDA_LOG_FORMAT: 'JSON',
    });
    // Nothing of the test runner's own environment leaks in.
    expect(Object.keys(value.env).filter((k) => k.startsWith('VITEST'))).toEqual([]);
    expect(await host.invoke({})).toMatchObject({ ok: true, cold: false });
  });

  it('reports a bundle that throws at import as an init error, then tries a fresh container', async () => {
    const { host } = hostOf(`throw new Error('no config at import');`);
    expect(await host.invoke({})).toMatchObject({
      ok: false,
      kind: 'init',
      errorMessage: 'no config at import',
    });
    expect(host.containerCount).toBe(0);
    expect(await host.invoke({})).toMatchObject({ ok: false, kind: 'init', cold: true });
  });

  it("stops a handler at the template's timeout, as Lambda does, and the next invocation starts fresh", async () => {
    const { host } = hostOf(
      `let calls = 0; export const handler = async (e) => { calls += 1; if (e.hang) await new Promise(() => {}); return calls; };`,
      { timeoutSeconds: 1 },
    );
    expect(await host.invoke({ hang: true })).toMatchObject({
      ok: false,
      kind: 'timeout',
      errorMessage: 'Task timed out after 1.00 seconds',
    });
    // A fresh container: its module state starts over.
    expect(await host.invoke({})).toMatchObject({ ok: true, value: 1, cold: true });
  });

  it('reports a container that exits mid-invocation, and a handler error with its type', async () => {
    const { host } = hostOf(
      `export const handler = async (e) => { if (e.exit) process.exit(3); const err = new Error('bad input'); err.name = 'InvalidJobError'; throw err; };`,
    );
    expect(await host.invoke({ exit: true })).toMatchObject({
      ok: false,
      kind: 'crash',
      errorMessage: 'Runtime exited with exit status 3',
    });
    expect(await host.invoke({})).toMatchObject({
      ok: false,
      kind: 'error',
      errorType: 'InvalidJobError',
      errorMessage: 'bad input',
      cold: true,
    });
  });
});
