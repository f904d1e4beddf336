import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningReceiver } from '../../functions/local/receiver';
import type { LocalRuntime } from '../../functions/local/runtime';
import { runCarhook } from '../e2e/support';
import { type CliWorld, startCliWorld } from './support';

const TOKEN = 'cli-manage-admin-token-0123456789';

describe('carhook management commands, one per route', () => {
  let rt: LocalRuntime;
  let receiver: RunningReceiver;
  const cli = (args: string[]) => runCarhook(args, { CARHOOK_URL: rt.apiUrl, CARHOOK_ADMIN_TOKEN: TOKEN });

  let world: CliWorld | undefined;
  beforeAll(async () => {
    world = await startCliWorld(TOKEN, 'carhook-cli-manage-');
    ({ rt, receiver } = world);
  }, 90_000);
  afterAll(async () => {
    await world?.close();
  });

  it('subscriptions get, edit, disable, enable, deliveries and dead-letters', {
    timeout: 60_000,
  }, async () => {
    const add = await cli(['subscriptions', 'add', '--url', receiver.url, '--json']);
    expect(add.code, add.stderr).toBe(0);
    const { id, secret } = JSON.parse(add.stdout) as { id: string; secret: string };
    receiver.setSecret(secret);

    const edited = await cli([
      'subscriptions',
      'edit',
      id,
      '--types',
      'vehicle.alert.*,vehicle.trip.completed',
      '--json',
    ]);
    expect(edited.code, edited.stderr).toBe(0);
    expect(JSON.parse(edited.stdout)).toMatchObject({
      id,
      eventTypes: ['vehicle.alert.*', 'vehicle.trip.completed'],
    });
    const cleared = await cli([
      'subscriptions',
      'edit',
      id,
      '--types',
      'all',
      '--description',
      'ops',
      '--json',
    ]);
    expect(JSON.parse(cleared.stdout).eventTypes).toBeUndefined();
    expect(JSON.parse(cleared.stdout).description).toBe('ops');
    const none = await cli(['subscriptions', 'edit', id]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('edit: give at least one of --url');
    const badUrl = await cli(['subscriptions', 'edit', id, '--endpoint', 'ftp://example.com/x']);
    expect(badUrl.code).toBe(1);
    expect(badUrl.stderr).toMatch(/PATCH \/subscriptions\/\S+ → 400: url/);

    const disabled = await cli(['subscriptions', 'disable', id]);
    expect(disabled.stdout.trim()).toBe(`disabled ${id}`);
    const got = await cli(['subscriptions', 'get', id]);
    expect(got.stdout).toContain('status disabled (disabled by an operator)');
    expect(got.stdout).not.toContain('whsec_');
    const refused = await cli(['subscriptions', 'test', id]);
    expect(refused.code).toBe(1);
    const enabled = await cli(['subscriptions', 'enable', id]);
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(enabled.stdout).toMatch(new RegExp(`^subscription ${id} is disabled since `));
    // Deliveries of the world's first polls fanned out before the disable may be parked: their
    // number depends on timing, the line that reports them does not.
    expect(enabled.stdout).toMatch(new RegExp(`\\nenabled ${id}: \\d+ parked delivery\\(ies\\) resumed\\n`));

    // Only the test event from here on: the first polls' events do not match this filter.
    expect((await cli(['subscriptions', 'edit', id, '--types', 'vehicle.collision.detected'])).code).toBe(0);
    expect((await cli(['subscriptions', 'test', id])).code).toBe(0);
    const log = await cli(['subscriptions', 'deliveries', id, '--json']);
    const items = (JSON.parse(log.stdout).items as { eventType: string; statusCode: number }[]).filter(
      (a) => a.eventType === 'webhook.test',
    );
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ eventType: 'webhook.test', statusCode: 204 });
    const human = await cli(['subscriptions', 'deliveries', id]);
    expect(human.stdout).toMatch(
      /^STARTED\s+EVENT\s+TYPE\s+#\s+OUTCOME\s+STATUS\s+MS\s+NEXT\n(.*\n)*\S+\s+evt_\S+\s+webhook\.test\s+1\s+success\s+204/,
    );
    const dead = await cli(['subscriptions', 'dead-letters', id, '--json']);
    expect(JSON.parse(dead.stdout)).toEqual({ items: [] });

    const replay = await cli([
      'subscriptions',
      'replay',
      id,
      '--since',
      '1h',
      '--events',
      'evt_none',
      '--no-wait',
      '--json',
    ]);
    expect(replay.code, replay.stderr).toBe(1); // nothing was sent
    expect(JSON.parse(replay.stdout)).toMatchObject({
      events: 0,
      eventIds: [],
      skipped: [
        { eventId: 'evt_none', reason: 'not in the event log: unknown, or older than its retention' },
      ],
    });
  });

  it('enrollments get shows the vehicles; remove unenrolls', { timeout: 30_000 }, async () => {
    const listed = JSON.parse((await cli(['enrollments', 'list', '--json'])).stdout).enrollments as {
      id: string;
    }[];
    const first = listed[0]?.id ?? 'missing';
    const got = await cli(['enrollments', 'get', first, '--json']);
    expect(got.code, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ id: first, status: 'active' });
    const human = await cli(['enrollments', 'get', first]);
    expect(human.stdout).toMatch(/^enrollment \S+ \(oauth-user, \S+\): active\nVEHICLE\s+VIN\s+POLLING/);
    const removed = await cli(['enrollments', 'remove', first]);
    expect(removed.stdout).toMatch(new RegExp(`^unenrolled ${first}: \\d+ vehicle\\(s\\) no longer polled`));
    expect(JSON.parse((await cli(['enrollments', 'get', first, '--json'])).stdout).status).toBe('unenrolled');
    const missing = await cli(['enrollments', 'get', 'enr_doesnotexist']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('404');
  });
});
