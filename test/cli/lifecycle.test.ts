import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    world = await startCliWorld(TOKEN, 'carhook-cli-lifecycle-', { clock: 'simulated' });
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
});
