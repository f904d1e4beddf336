/**
 * `--demo` in process: the receiver is subscribed to everything through the HTTP API, the script
 * raises and fixes simulator alerts, and what arrives is verified (signed with the subscription's
 * secret). Also: the runtime's JSONL file gets every published event, one envelope per line.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Demo, startDemo } from '../../functions/local/demo';
import type { ReceivedWebhook } from '../../functions/local/receiver';
import { type LocalRuntime, startLocalRuntime } from '../../functions/local/runtime';
import { until } from '../e2e/support';

describe('carhook dev --demo', () => {
  let rt: LocalRuntime;
  let demo: Demo | undefined;
  let dir: string;
  const got: ReceivedWebhook[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'carhook-demo-'));
    rt = await startLocalRuntime({
      port: 0,
      simPort: 0,
      vehicles: 2,
      pollIntervalMs: 1000,
      pollConcurrency: 2,
      dataDir: dir,
      out: null,
      err: null,
    });
  }, 90_000);
  afterAll(async () => {
    await demo?.stop();
    await rt?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('raises and fixes alerts and the receiver verifies what it gets', { timeout: 60_000 }, async () => {
    expect(rt.pollConcurrency).toBe(2);
    demo = await startDemo(rt, { everyMs: 1000, out: null, onWebhook: (w) => got.push(w) });
    const subs = await fetch(`${rt.apiUrl}/subscriptions`, {
      headers: { authorization: `Bearer ${rt.adminToken}` },
    });
    const items = ((await subs.json()) as { items: { id: string; url: string; eventTypes?: string[] }[] })
      .items;
    expect(items).toEqual([expect.objectContaining({ id: demo.subscriptionId, url: demo.receiver.url })]);
    expect(items[0]?.eventTypes).toBeUndefined(); // every event type

    await until('a raised and a fixed alert at the demo receiver', () => {
      const types = new Set(got.map((w) => w.type));
      return types.has('vehicle.alert.raised') && types.has('vehicle.alert.fixed') ? true : undefined;
    });
    expect(got.every((w) => w.verified)).toBe(true);

    const lines = (await readFile(rt.jsonlPath, 'utf8')).trim().split('\n');
    const logged = new Set(lines.map((l) => (JSON.parse(l) as { id: string }).id));
    // Each delivered event was published on the bus (and so written to the JSONL file) first.
    for (const w of got) expect(logged.has(w.id), w.id).toBe(true);
    expect(rt.jsonlPath).toBe(join(dir, 'events.jsonl'));
  });
});
