/**
 * The management commands, run as a user runs them (`node bin/carhook.mjs …`), against a local
 * runtime started in this process (DynamoDB Local, simulator, HTTP API on free ports).
 */
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, resolveTarget } from '../../bin/cli/client';
import { buildProgram } from '../../bin/cli/program';
import { sign } from '../../functions/core/webhooks/signing';
import type { RunningReceiver } from '../../functions/local/receiver';
import type { LocalRuntime } from '../../functions/local/runtime';
import { runCarhook } from '../e2e/support';
import { type CliWorld, startCliWorld } from './support';

const TOKEN = 'cli-test-admin-token-0123456789';

describe('carhook management commands against the local runtime', () => {
  let rt: LocalRuntime;
  let receiver: RunningReceiver;
  let dir: string;
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCarhook(args, { CARHOOK_URL: rt.apiUrl, CARHOOK_ADMIN_TOKEN: TOKEN, ...env });
  const jsonOf = (stdout: string) => JSON.parse(stdout);

  let world: CliWorld | undefined;
  beforeAll(async () => {
    world = await startCliWorld(TOKEN, 'carhook-cli-');
    ({ rt, receiver, dir } = world);
  }, 90_000);
  afterAll(async () => {
    await world?.close();
  });

  it('enrollments list shows the simulator users enrolled through OAuth', { timeout: 30_000 }, async () => {
    const r = await cli(['enrollments', 'list', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const users = rt.sim?.world
      .users()
      .map((u) => u.id)
      .sort();
    expect(
      jsonOf(r.stdout)
        .enrollments.map((e: { userId: string }) => e.userId)
        .sort(),
    ).toEqual(users);
    const human = await cli(['enrollments', 'list']);
    expect(human.stdout).toMatch(/^ID\s+KIND\s+BRAND\s+STATUS/);
  });

  it('enroll contract enrolls a fleet vehicle, and names a bad field', { timeout: 30_000 }, async () => {
    // The API must know the contract: one of the simulator's vehicles.
    const car = rt.sim?.world.vehicles()[0];
    const ok = await cli([
      'enroll',
      'contract',
      '--vin',
      String(car?.vin),
      '--contract',
      String(car?.contract),
      '--brand',
      // The brand by its name, as in `enroll link --brand cielo` (the v1 code is accepted too).
      car?.brand === 'C' ? 'cielo' : 'pavo',
      '--json',
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(jsonOf(ok.stdout)).toMatchObject({
      enrollmentId: expect.any(String),
      vehicleId: expect.stringContaining(String(car?.vin)),
    });
    const bad = await cli(['enroll', 'contract', '--vin', 'short', '--contract', 'C-2', '--brand', 'C']);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe(
      'carhook: POST /enrollments/contracts → 400: vin: must be 17 characters A-Z or 0-9',
    );
  });

  it('enroll contract --file enrolls many and reports the ones refused', { timeout: 30_000 }, async () => {
    const file = join(dir, 'contracts.csv');
    // The first vehicle is enrolled by the test above; the second, and the first again (a duplicate).
    const [first, second] = rt.sim?.world.vehicles() ?? [];
    await writeFile(
      file,
      `vin,contract,brand\n${second?.vin},${second?.contract},${second?.brand}\nBAD,C-103,C\n${first?.vin},${first?.contract},${first?.brand}\n`,
    );
    const r = await cli(['enroll', 'contract', '--file', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^enrolled 1 of 3\n {2}BAD: POST \/enrollments\/contracts → 400: vin: must be 17 characters A-Z or 0-9\n {2}\w+: POST \/enrollments\/contracts → 409: vin: \w+ is already enrolled/,
    );
    const missing = await cli(['enroll', 'contract', '--vin', 'WVWZZZ1JZXW000104']);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe(
      'carhook: --vin, --contract and --brand are required (or --file with many)',
    );
  });

  it('subscriptions add, list, test, rotate, replay and remove', { timeout: 60_000 }, async () => {
    const add = await cli(['subscriptions', 'add', '--url', receiver.url, '--json']);
    expect(add.code, add.stderr).toBe(0);
    const { id, secret } = jsonOf(add.stdout);
    expect(secret).toMatch(/^whsec_/);
    receiver.setSecret(secret);

    const list = await cli(['subscriptions', 'list', '--json']);
    expect(jsonOf(list.stdout).items.map((s: { id: string }) => s.id)).toContain(id);

    const test = await cli(['subscriptions', 'test', id, '--json']);
    expect(test.code, test.stderr).toBe(0);
    expect(jsonOf(test.stdout).attempt).toMatchObject({ outcome: 'success', statusCode: 204 });

    const rotate = await cli(['subscriptions', 'rotate', id]);
    expect(rotate.code, rotate.stderr).toBe(0);
    expect(rotate.stdout).toMatch(/^new secret whsec_\S+ {3}\(previous one valid until /);

    const replay = await cli(['subscriptions', 'replay', id, '--since', '1h', '--no-wait']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toMatch(
      /^replay rpl_\S+: \d+ event\(s\) queued for delivery \(same event ids\)\n$/,
    );

    const removed = await cli(['subscriptions', 'remove', id]);
    expect(removed.stdout.trim()).toBe(`removed ${id}`);
    const after = await cli(['subscriptions', 'list', '--json']);
    expect(jsonOf(after.stdout).items.map((s: { id: string }) => s.id)).not.toContain(id);
    const gone = await cli(['subscriptions', 'test', id]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/→ 404: no subscription/);
  });

  it('subscriptions replay waits until every replayed event is delivered', { timeout: 60_000 }, async () => {
    const add = await cli(['subscriptions', 'add', '--url', receiver.url, '--json']);
    expect(add.code, add.stderr).toBe(0);
    const { id, secret } = jsonOf(add.stdout);
    receiver.setSecret(secret);
    try {
      const human = await cli(['subscriptions', 'replay', id, '--since', '1h', '--timeout', '40s']);
      expect(human.code, human.stderr).toBe(0);
      const n = rt.sim?.world.vehicleCount ?? -1;
      expect(human.stdout).toMatch(/^replay rpl_\S+: delivered (\d+), failed 0\n$/);
      expect(Number(/delivered (\d+)/.exec(human.stdout)?.[1])).toBeGreaterThanOrEqual(n);
      // Not a terminal: no progress bar drawn into a pipe.
      expect(human.stderr).toBe('');
      const json = await cli(['subscriptions', 'replay', id, '--since', '1h', '--timeout', '40s', '--json']);
      expect(json.code, json.stderr).toBe(0);
      const summary = jsonOf(json.stdout);
      expect(summary).toMatchObject({
        replayId: expect.stringMatching(/^rpl_/),
        timedOut: false,
        failed: [],
        pending: [],
      });
      expect(summary.events).toBeGreaterThanOrEqual(n);
      expect(summary.eventIds).toHaveLength(summary.events);
      expect([...summary.delivered].sort()).toEqual([...summary.eventIds].sort());
    } finally {
      await cli(['subscriptions', 'remove', id]);
    }
  });

  it('subscriptions replay to a failing endpoint stops at --timeout with the pending count, exit 1', {
    timeout: 60_000,
  }, async () => {
    let hits = 0;
    const failing = http.createServer((_req, res) => {
      hits += 1;
      res.writeHead(500).end('down');
    });
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(failing.address() as AddressInfo).port}/hook`;
    const add = await cli(['subscriptions', 'add', '--url', url, '--json']);
    expect(add.code, add.stderr).toBe(0);
    const { id } = jsonOf(add.stdout);
    try {
      const r = await cli(['subscriptions', 'replay', id, '--since', '1h', '--timeout', '2s']);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(
        /^replay rpl_\S+: delivered 0, failed 0, still pending (\d+) after 2s \(they keep being retried in the background\)\n$/,
      );
      const pending = Number(/still pending (\d+)/.exec(r.stdout)?.[1]);
      expect(pending).toBeGreaterThan(0);
      expect(hits).toBeGreaterThan(0);
      const bad = await cli(['subscriptions', 'replay', id, '--since', '1h', '--timeout', 'soon']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/^carhook: --timeout: /);
    } finally {
      await cli(['subscriptions', 'remove', id]);
      await new Promise<void>((resolve) => failing.close(() => resolve()));
    }
  });

  it('events tail --once prints the detected events, filtered by type', { timeout: 30_000 }, async () => {
    const r = await cli(['events', 'tail', '--once', '--type', 'enrollment.vehicle.added', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // Each simulator user's vehicles (OAuth), and the two fleet contracts enrolled above.
    const kinds = events.map((e: { enrollment: { kind: string } }) => e.enrollment.kind);
    expect(kinds.filter((k: string) => k === 'oauth-user')).toHaveLength(rt.sim?.world.vehicleCount ?? -1);
    expect(kinds.filter((k: string) => k === 'fleet-contract')).toHaveLength(2);
    expect(new Set(events.map((e: { type: string }) => e.type))).toEqual(
      new Set(['enrollment.vehicle.added']),
    );
  });

  it("metrics shows the quota and each minute's requests and detection lag", {
    timeout: 30_000,
  }, async () => {
    const r = await cli(['metrics', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const body = jsonOf(r.stdout) as { quota: { limit: number }; minutes: { apiRequests: number }[] };
    expect(body.quota.limit).toBeGreaterThan(0);
    // The runtime polled the simulator since it started: requests were counted.
    expect(body.minutes.reduce((a, m) => a + m.apiRequests, 0)).toBeGreaterThan(0);
    const human = await cli(['metrics']);
    expect(human.stdout).toMatch(/^quota \d+ requests per \d+ s\nminute\s+requests\s+429\s+events/);
  });

  it('capacity shows the quota and, per kind, the guarantee and the expected lag', {
    timeout: 30_000,
  }, async () => {
    const r = await cli(['capacity', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const body = jsonOf(r.stdout) as { vehicles: number; kinds: { kind: string; guaranteeS: number }[] };
    expect(body.vehicles).toBe(rt.sim?.world.vehicleCount);
    expect(body.kinds.map((k) => k.kind)).toEqual([
      'alerts',
      'trips',
      'collisions',
      'fuel',
      'maintenance',
      'services',
      'map',
    ]);
    const human = await cli(['capacity']);
    expect(human.stdout).toMatch(
      /^\d+ vehicles \(\d+ with active alerts\), [\d.]+ changes an hour learned, strategy carhook\nquota \d+ per 60 s: /,
    );
    expect(human.stdout).toMatch(/\ntrips\s+16 min\s+/);
  });

  it('enroll link prints the OAuth enrollment link, and names a bad --brand', {
    timeout: 30_000,
  }, async () => {
    const r = await cli(['enroll', 'link', '--brand', 'cielo']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(`${rt.apiUrl}/oauth/cielo/authorize`);
    const bad = await cli(['enroll', 'link', '--brand', 'Cielo!']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--brand');
    // A brand the API does not serve is refused before any link is printed, naming those it does.
    const unknown = await cli(['enroll', 'link', '--brand', 'mystery']);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr.trim()).toBe('carhook: --brand: brand: must be one of cielo, pavo');
  });

  it('has a command for every operation of the HTTP API a person or a script calls', {
    timeout: 30_000,
  }, async () => {
    const doc = (await (await fetch(`${rt.apiUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    const operations = Object.values(doc.paths).flatMap((p) => Object.values(p).map((o) => o.operationId));
    // The browser's own routes: the console page and its assets, the OAuth callback, the document.
    const browserOnly = [
      'getConsole',
      'getConsoleScript',
      'getConsoleStylesheet',
      'getFavicon',
      'completeEnrollment',
      'getOpenApiDocument',
      'getHealth',
    ];
    const commandOf: Record<string, string[]> = {
      authorizeEnrollment: ['enroll', 'link'],
      enrollFleetContract: ['enroll', 'contract'],
      listEnrollments: ['enrollments', 'list'],
      getEnrollment: ['enrollments', 'get'],
      unenroll: ['enrollments', 'remove'],
      listEvents: ['events', 'tail'],
      getRecentMetrics: ['metrics'],
      getCapacity: ['capacity'],
      getVehicleState: ['vehicles', 'state'],
      createSubscription: ['subscriptions', 'add'],
      listSubscriptions: ['subscriptions', 'list'],
      getSubscription: ['subscriptions', 'get'],
      updateSubscription: ['subscriptions', 'edit'],
      deleteSubscription: ['subscriptions', 'remove'],
      enableSubscription: ['subscriptions', 'enable'],
      getSubscriptionBacklog: ['subscriptions', 'backlog'],
      disableSubscription: ['subscriptions', 'disable'],
      rotateSubscriptionSecret: ['subscriptions', 'rotate'],
      sendTestEvent: ['subscriptions', 'test'],
      listDeliveries: ['subscriptions', 'deliveries'],
      listDeadLetters: ['subscriptions', 'dead-letters'],
      replayEvents: ['subscriptions', 'replay'],
      recoverFailedDeliveries: ['subscriptions', 'recover'],
      getEvent: ['events', 'get'],
      listEventTypes: ['events', 'types'],
      sendSampleEvent: ['subscriptions', 'sample'],
      getVehicle: ['vehicles', 'get'],
      pauseVehicle: ['vehicles', 'pause'],
      resumeVehicle: ['vehicles', 'resume'],
    };
    expect(operations.filter((o) => !browserOnly.includes(o)).sort()).toEqual(Object.keys(commandOf).sort());
    // Each is a command of the CLI's own program (the one `carhook` runs).
    const program = buildProgram();
    for (const args of Object.values(commandOf)) {
      let command: Command | undefined = program;
      for (const name of args) command = command?.commands.find((c) => c.name() === name);
      expect(command?.name(), args.join(' ')).toBe(args.at(-1));
    }
  });

  it('a wrong admin token: one line with the hint, exit 1', { timeout: 30_000 }, async () => {
    const r = await cli(['subscriptions', 'list'], { CARHOOK_ADMIN_TOKEN: 'not-the-right-token-at-all' });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(
      /^carhook: GET \/subscriptions → 401: the admin token is not valid \(set CARHOOK_ADMIN_TOKEN/,
    );
  });

  it('verify checks a saved request file', { timeout: 30_000 }, async () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"type":"webhook.test","timestamp":"2026-01-01T00:00:00.000Z","data":{}}';
    const ts = Math.floor(Date.now() / 1000);
    const signature = sign(secret, 'evt_saved', ts, body);
    if (!signature.ok) throw new Error(signature.error.message);
    const file = join(dir, 'saved.json');
    await writeFile(
      file,
      JSON.stringify({
        headers: {
          'webhook-id': 'evt_saved',
          'webhook-timestamp': String(ts),
          'webhook-signature': signature.value,
        },
        body,
      }),
    );
    const good = await cli(['verify', '--secret', secret, '--file', file]);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout.trim()).toBe('valid: webhook evt_saved signed with this secret');
    const bad = await cli([
      'verify',
      '--secret',
      'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      '--file',
      file,
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/^INVALID: /);
  });
});

describe('the CLI client', () => {
  it('signs requests to a deployed API with SigV4 (execute-api) when no admin token is given', async () => {
    const seen: http.IncomingHttpHeaders[] = [];
    const server = http.createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"items":[]}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = 'AKIDEXAMPLE';
    process.env.AWS_SECRET_ACCESS_KEY = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';
    try {
      const target = resolveTarget({ url: `http://127.0.0.1:${port}`, aws: true, region: 'eu-west-1' }, {});
      expect(target.auth).toEqual({ kind: 'sigv4', region: 'eu-west-1' });
      const r = await request(target, 'GET', '/subscriptions', { query: { limit: '10' } });
      expect(r.body).toEqual({ items: [] });
      expect(seen[0]?.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/execute-api\/aws4_request, SignedHeaders=.*host.*, Signature=[0-9a-f]{64}$/,
      );
      expect(seen[0]?.['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
    } finally {
      process.env.AWS_ACCESS_KEY_ID = saved.id;
      process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
      if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
      if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('picks the target: token locally, SigV4 for an execute-api URL (region from the host), errors name the flag', () => {
    expect(resolveTarget({}, { CARHOOK_ADMIN_TOKEN: 'x'.repeat(20) })).toEqual({
      url: 'http://127.0.0.1:8080',
      auth: { kind: 'token', token: 'x'.repeat(20) },
    });
    expect(resolveTarget({ url: 'https://abc123.execute-api.eu-central-1.amazonaws.com/' }, {})).toEqual({
      url: 'https://abc123.execute-api.eu-central-1.amazonaws.com',
      auth: { kind: 'sigv4', region: 'eu-central-1' },
    });
    expect(() => resolveTarget({ url: 'not a url' }, {})).toThrow(/^--url: "not a url" is not a URL/);
    expect(() => resolveTarget({ url: 'https://api.example.net' }, {})).toThrow(/^--region: needed/);
  });
});
