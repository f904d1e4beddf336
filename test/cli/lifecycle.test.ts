import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETRY_SCHEDULES } from '../../functions/core/delivery/retry-schedule';
import type { LocalRuntime } from '../../functions/local/runtime';
import { runCarhook } from '../e2e/support';
import { type Receiver, startReceiver } from '../webhooks/receiver';
import { type CliWorld, startCliWorld } from './support';

const TOKEN = 'cli-lifecycle-admin-token-0123456789';

/**
 * The CLI on a runtime with the simulated clock: every `advance` runs a poll cycle and every job and
 * delivery due, so the tests make changes in the simulator and see exactly their consequences.
 */
describe('carhook subscriptions: disable, events, enable', () => {
  let world: CliWorld | undefined;
  let rt: LocalRuntime;
  let rx: Receiver;
  const cli = (args: string[]) => runCarhook(args, { CARHOOK_URL: rt.apiUrl, CARHOOK_ADMIN_TOKEN: TOKEN });
  const events = async (type: string) => {
    const r = await cli(['events', 'tail', '--once', '--type', type, '--since', '1h', '--json']);
    return r.stdout
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { id: string; detectedAt: string });
  };

  beforeAll(async () => {
    world = await startCliWorld(TOKEN, 'carhook-cli-lifecycle-', {
      clock: 'simulated',
      retrySchedule: RETRY_SCHEDULES.fast,
    });
    rt = world.rt;
    rx = await startReceiver((_req, res) => res.writeHead(204).end());
    // The first polls: the vehicles' baselines (nothing old is told as new).
    for (let i = 0; i < 3; i++) await rt.advance(5000);
  }, 90_000);
  afterAll(async () => {
    await rx?.close();
    await world?.close();
  });

  it('delivers every vehicle.alert.fixed detected while disabled once, with its own id, after showing what it will do', {
    timeout: 90_000,
  }, async () => {
    const add = await cli([
      'subscriptions',
      'add',
      '--url',
      rx.url(),
      '--types',
      'vehicle.alert.fixed',
      '--json',
    ]);
    expect(add.code, add.stderr).toBe(0);
    const { id } = JSON.parse(add.stdout) as { id: string };
    const sim = rt.sim;
    if (!sim) throw new Error('the simulator runs');
    const car = sim.world.vehicles()[0];
    if (!car) throw new Error('a vehicle');
    const raised = [0, 1, 2].map(() => {
      const r = sim.world.raiseAlert(car.id, { severity: 'high' });
      if (!r.ok) throw new Error('raised');
      return r.value.id;
    });
    await rt.advance(5000);

    const disabled = await cli(['subscriptions', 'disable', id]);
    expect(disabled.stdout.trim(), disabled.stderr).toBe(`disabled ${id}`);
    await rt.advance(1000);
    for (const alertId of raised) expect(sim.world.fixAlert(car.id, alertId).ok).toBe(true);
    for (let i = 0; i < 30 && (await events('vehicle.alert.fixed')).length < 3; i++) await rt.advance(5000);
    const fixed = await events('vehicle.alert.fixed');
    expect(fixed).toHaveLength(3);
    expect(rx.requests).toEqual([]);

    const enabled = await cli(['subscriptions', 'enable', id]);
    expect(enabled.code, enabled.stderr).toBe(0);
    const lines = enabled.stdout.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^subscription ${id} is disabled since \\S+Z$`));
    expect(lines[1]).toBe(
      '  3 event(s) matching its filters were detected since then: enabling queues them in detection order, with their own ids',
    );
    expect(lines.slice(2)).toEqual([
      '  0 parked delivery(ies) resume',
      `enabled ${id}: 0 parked delivery(ies) resumed`,
      '  3 event(s) detected while disabled queued for delivery in detection order, with their own ids',
    ]);
    await rt.advance(1000);
    // The queue's workers deliver them concurrently: each once, whatever the order of arrival.
    expect(rx.requests.map((r) => r.headers['webhook-id']).sort()).toEqual(fixed.map((e) => e.id).sort());

    // Nothing is sent twice, and an active subscription has nothing waiting.
    const again = await cli(['subscriptions', 'enable', id]);
    expect(again.stdout.split('\n')[0]).toBe(`subscription ${id} is active: no event is waiting for it`);
    await rt.advance(1000);
    expect(rx.requests).toHaveLength(3);
  });

  it('enable --discard delivers none of them; --json prints the API answer', {
    timeout: 60_000,
  }, async () => {
    const add = await cli([
      'subscriptions',
      'add',
      '--url',
      rx.url(),
      '--types',
      'vehicle.alert.*',
      '--json',
    ]);
    const { id } = JSON.parse(add.stdout) as { id: string };
    const before = rx.requests.length;
    await cli(['subscriptions', 'disable', id]);
    await rt.advance(1000);
    const sim = rt.sim;
    const car = sim?.world.vehicles()[0];
    if (!sim || !car) throw new Error('a vehicle');
    const raisedBefore = (await events('vehicle.alert.raised')).length;
    expect(sim.world.raiseAlert(car.id, { severity: 'low' }).ok).toBe(true);
    for (let i = 0; i < 30 && (await events('vehicle.alert.raised')).length === raisedBefore; i++)
      await rt.advance(5000);
    const enabled = await cli(['subscriptions', 'enable', id, '--discard', '--json']);
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(JSON.parse(enabled.stdout)).toMatchObject({
      subscription: { id, status: 'active' },
      resumed: 0,
      backlog: { action: 'discard', matched: 1, discarded: 1, recovered: 0, truncated: false },
    });
    await rt.advance(1000);
    expect(rx.requests).toHaveLength(before);
  });

  it('replay --events needs no --since and says why an event was not sent', { timeout: 30_000 }, async () => {
    const add = await cli([
      'subscriptions',
      'add',
      '--url',
      rx.url(),
      '--types',
      'vehicle.trip.completed',
      '--json',
    ]);
    const { id } = JSON.parse(add.stdout) as { id: string };
    const [fixed] = await events('vehicle.alert.fixed');
    if (!fixed) throw new Error('an alert.fixed event');
    const r = await cli(['subscriptions', 'replay', id, '--events', `${fixed.id},evt_unknown`, '--no-wait']);
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^replay rpl_\S+: 0 event\(s\) queued for delivery \(same event ids\)$/),
      `  ${fixed.id} not sent: the subscription's eventTypes (vehicle.trip.completed) exclude vehicle.alert.fixed`,
      '  evt_unknown not sent: not in the event log: unknown, or older than its retention',
    ]);
    const usage = await cli(['subscriptions', 'replay', id]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toBe('carhook: --since is required (or --events with the event ids to replay)\n');
  });

  it('vehicles list, get, pause and resume', { timeout: 60_000 }, async () => {
    const listed = await cli(['vehicles', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const vehicles = (JSON.parse(listed.stdout) as { vehicles: { vehicle: { id: string; vin: string } }[] })
      .vehicles;
    const first = vehicles[0]?.vehicle;
    if (!first) throw new Error('a vehicle');
    const table = await cli(['vehicles', 'list']);
    expect(table.stdout).toMatch(/^VEHICLE\s+VIN\s+ENROLLMENT\s+POLLING\s+LAST CHANGE\n/);
    expect(table.stdout).toContain(first.vin);
    const got = await cli(['vehicles', 'get', first.id]);
    expect(got.code, got.stderr).toBe(0);
    const lines = got.stdout.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^vehicle ${first.id.replace(':', ':')}  VIN ${first.vin}`));
    expect(lines[2]).toMatch(/^ {2}connection polled; token valid until \S+Z$/);
    expect(got.stdout).toMatch(
      /\nREAD\s+LAST\s+FROM\s+NEXT BY\s+EVERY\nevents\s+\S+Z\s+planner\s+\S+Z\s+15 min\n/,
    );
    expect(got.stdout).toMatch(/\n {2}learned change rate [\d.]+ per hour \(over [\d.]+ h observed\)/);
    expect(got.stdout).toMatch(
      /\n {2}quota: at least [\d.]+ reads per hour of \d+ \([\d.e-]+ %\), events at least every 15 min\n/,
    );
    const paused = await cli(['vehicles', 'pause', first.id]);
    expect(paused.stdout.trim()).toBe(`paused ${first.id}: paused (manual)`);
    expect((await cli(['vehicles', 'get', first.id])).stdout).toContain('\n  connection paused (manual)');
    const resumed = await cli(['vehicles', 'resume', first.id]);
    expect(resumed.stdout.trim()).toBe(`resumed ${first.id}: polled`);
    const missing = await cli(['vehicles', 'get', 'enr_nope:vv1']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('404: no vehicle enr_nope:vv1');
  });

  it('events get and types; subscriptions sample', { timeout: 60_000 }, async () => {
    const [fixed] = await events('vehicle.alert.fixed');
    if (!fixed) throw new Error('an alert.fixed event');
    const got = await cli(['events', 'get', fixed.id]);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toMatch(
      new RegExp(
        `^event ${fixed.id} vehicle\\.alert\\.fixed v1, occurred \\S+Z, detected \\S+Z\\n  vehicle \\S+ \\(VIN [A-Z0-9]{17}\\), sequence \\d+\\n`,
      ),
    );
    expect(got.stdout).toMatch(/\nSUBSCRIPTION\s+URL\s+STATUS\s+ATTEMPTS\s+LAST\n/);
    const types = await cli(['events', 'types']);
    expect(types.stdout).toMatch(
      /^TYPE\s+TRIGGER\nvehicle\.alert\.raised\s+An alert becomes active in the car\.\n/,
    );
    const one = await cli(['events', 'types', '--type', 'vehicle.trip.completed']);
    expect(one.stdout).toMatch(/^vehicle\.trip\.completed \(version 1\)\n/);
    expect(one.stdout).toContain('\n  delay    ');
    expect(one.stdout).toContain('"type": "vehicle.trip.completed"');
    const unknown = await cli(['events', 'types', '--type', 'vehicle.flying']);
    expect(unknown.code).toBe(2);
    const add = await cli([
      'subscriptions',
      'add',
      '--url',
      rx.url(),
      '--types',
      'vehicle.trip.completed',
      '--json',
    ]);
    const { id } = JSON.parse(add.stdout) as { id: string };
    const before = rx.requests.length;
    const sample = await cli(['subscriptions', 'sample', id, '--type', 'vehicle.refuel.detected']);
    expect(sample.code, sample.stderr).toBe(0);
    expect(sample.stdout.trim()).toMatch(
      /^sample vehicle\.refuel\.detected evt_\S+: success \(HTTP 204\) in \d+ ms$/,
    );
    expect(JSON.parse(rx.requests[before]?.body ?? '{}')).toMatchObject({
      type: 'vehicle.refuel.detected',
      data: { sample: true, sequence: 0 },
    });
  });

  it('a failing endpoint: health after one attempt, failed attempts in full, dead letters recovered', {
    timeout: 90_000,
  }, async () => {
    let status = 500;
    const failing = await startReceiver((_req, res) =>
      res.writeHead(status, { 'x-why': 'down' }).end('down for now'),
    );
    try {
      const add = await cli([
        'subscriptions',
        'add',
        '--url',
        failing.url(),
        '--description',
        'flaky',
        '--json',
      ]);
      const { id } = JSON.parse(add.stdout) as { id: string };
      const sent = await cli(['subscriptions', 'sample', id, '--type', 'vehicle.collision.detected']);
      expect(sent.stdout).toContain('failure (HTTP 500)');
      const health = await cli(['subscriptions', 'get', id]);
      expect(health.stdout.trim().split('\n').slice(1)).toEqual([
        '  status active, types *',
        '  description flaky',
        expect.stringMatching(/^ {2}health failing: 1 consecutive failure\(s\) since \S+Z$/),
        expect.stringMatching(/^ {2}last success never; last failure \S+Z: HTTP 500 \(failure\)$/),
        '  last 24 h: 1 attempt(s), 0 succeeded (0 %)',
        expect.stringMatching(/^ {2}retrying 1 delivery\(ies\), next at \S+Z$/),
        expect.stringMatching(/^ {2}disabled by the first failed attempt after \S+Z$/),
      ]);
      expect((await cli(['subscriptions', 'list'])).stdout).toMatch(
        new RegExp(`${id}\\s+active\\s+failing \\(1\\)`),
      );
      // The fast schedule's retries (1 s … 20 s) run out: a dead letter.
      for (let i = 0; i < 8; i++) await rt.advance(10_000);
      const full = await cli(['subscriptions', 'deliveries', id, '--status', 'failed', '--full']);
      expect(full.stdout).toMatch(/attempt 6, \d+ ms: failure → dead-letter/);
      expect(full.stdout).toContain('  request headers\n');
      expect(full.stdout).toContain('    webhook-signature: v1,');
      expect(full.stdout).toContain('  response 500\n');
      expect(full.stdout).toContain('    x-why: down');
      expect(full.stdout).toContain('    down for now');
      expect(
        (await cli(['subscriptions', 'deliveries', id, '--status', 'succeeded', '--json'])).stdout,
      ).toContain('"items": []');
      const dead = JSON.parse((await cli(['subscriptions', 'dead-letters', id, '--json'])).stdout) as {
        items: { eventId: string }[];
      };
      expect(dead.items).toHaveLength(1);
      status = 204;
      const recovered = await cli(['subscriptions', 'recover', id, '--since', '24h']);
      expect(recovered.code, recovered.stderr).toBe(0);
      expect(recovered.stdout.trim()).toMatch(
        /^recover rcv_\S+: 1 dead-lettered event\(s\) queued again \(same event ids\)$/,
      );
      await rt.advance(1000);
      expect(failing.requests.at(-1)?.headers['webhook-id']).toBe(dead.items[0]?.eventId);
      const edited = await cli(['subscriptions', 'edit', id, '--url', `${failing.url()}?v=2`, '--json']);
      expect(JSON.parse(edited.stdout).url).toBe(`${failing.url()}?v=2`);
    } finally {
      await failing.close();
    }
  });
});
