/**
 * What `carhook subscriptions backlog` and `enable` say of the events a disabled subscription missed,
 * past the event log's retention too, and the confirmation `enable` asks for: answering "n" enables
 * nothing. The commands run in this process against the HTTP app (its fetch served by the app).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { confirmation } from '../../bin/cli/manage';
import { buildProgram } from '../../bin/cli/program';
import { backlogLines, enabledLines } from '../../bin/cli/views';
import type { Backlog, EnableResult, Subscription } from '../../functions/http/contract';
import { DOCUMENT_TOKEN, documentedApp } from '../http/document-support';

const DAY = 86_400_000;

const window = {
  disabledAt: '2026-01-01T00:00:00.000Z',
  until: '2026-02-10T00:00:00.000Z',
  keptSince: '2026-01-11T00:00:00.000Z',
  retentionDays: 30,
  truncated: true,
  from: '2026-01-11T00:00:00.000Z',
};

describe('the backlog and enable views, past the retention', () => {
  it('backlog says the events detected before the log keeps them are gone', () => {
    const backlog: Backlog = {
      subscriptionId: 'sub_1',
      status: 'disabled',
      window,
      events: 3,
      more: false,
      limit: 1000,
      parked: 2,
    };
    expect(backlogLines(backlog, false).split('\n')).toEqual([
      'subscription sub_1 is disabled since 2026-01-01T00:00:00.000Z',
      '  3 event(s) matching its filters were detected since then: enabling queues them in detection order, with their own ids',
      '  the event log keeps 30 days: events detected before 2026-01-11T00:00:00.000Z are gone and cannot be delivered',
      '  2 parked delivery(ies) resume',
    ]);
    expect(backlogLines({ ...backlog, window: { ...window, truncated: false } }, true)).not.toContain('gone');
    expect(backlogLines({ ...backlog, more: true, events: 1000 }, false)).toContain(
      '1000+ event(s) matching its filters were detected since then: enabling queues them in detection order, with their own ids (the first 1000; replay the rest)',
    );
  });

  it('enable says what was lost past the retention, and how to deliver what remains', () => {
    const result = {
      subscription: {} as Subscription,
      resumed: 0,
      backlog: {
        ...window,
        action: 'recover',
        matched: 1000,
        recovered: 1000,
        discarded: 0,
        more: true,
        nextFrom: '2026-01-20T00:00:00.000Z',
      },
    } satisfies EnableResult;
    expect(enabledLines('sub_1', result).split('\n')).toEqual([
      'enabled sub_1: 0 parked delivery(ies) resumed',
      '  1000 event(s) detected while disabled queued for delivery in detection order, with their own ids',
      "  events detected before 2026-01-11T00:00:00.000Z were past the event log's retention: lost",
      '  more remain: carhook subscriptions replay sub_1 --since 2026-01-20T00:00:00.000Z delivers them',
    ]);
    const kept = { ...result, backlog: { ...result.backlog, truncated: false, more: false } };
    expect(enabledLines('sub_1', kept)).not.toContain('lost');
  });
});

describe('carhook subscriptions enable asks first', () => {
  let env: Awaited<ReturnType<typeof documentedApp>>;
  let written: string;
  const asked: string[] = [];
  const saved = { ...confirmation };

  beforeEach(async () => {
    env = await documentedApp();
    written = '';
    asked.length = 0;
    vi.stubGlobal('fetch', (url: URL | string, init?: RequestInit) => env.app.request(String(url), init));
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written += String(chunk);
      return true;
    });
  });
  afterEach(async () => {
    Object.assign(confirmation, saved);
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
    process.exitCode = undefined;
    await env.close();
  });

  /** A subscription disabled 40 days ago: beyond the event log's 30 days. */
  async function disabledLongAgo(): Promise<string> {
    const created = await env.app.request('/subscriptions', {
      method: 'POST',
      headers: { authorization: `Bearer ${DOCUMENT_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'http://127.0.0.1:9999/h' }),
    });
    const body = (await created.json()) as { id: string };
    expect(created.status, JSON.stringify(body)).toBe(201);
    const { id } = body;
    await env.subscriptionStores.subscriptions.disable(id, 'manual', env.s.runtime.now() - 40 * DAY);
    return id;
  }

  const enable = (id: string, answer: string) => {
    confirmation.interactive = () => true;
    confirmation.ask = async (question) => {
      asked.push(question);
      return answer;
    };
    return buildProgram().parseAsync(
      ['--url', 'http://127.0.0.1:9', '--token', DOCUMENT_TOKEN, 'subscriptions', 'enable', id],
      { from: 'user' },
    );
  };

  it('shows the backlog, past the retention too, and answering "n" enables nothing', async () => {
    const id = await disabledLongAgo();
    await enable(id, 'n');
    expect(asked).toEqual(['Enable and deliver them? [y/N] ']);
    expect(written).toContain(`subscription ${id} is disabled since`);
    expect(written).toMatch(/the event log keeps 30 days: events detected before \S+ are gone/);
    expect(written).toContain('not enabled');
    expect(process.exitCode).toBe(1);
    expect((await env.subscriptionStores.subscriptions.get(id))?.status).toBe('disabled');
  });

  it('answering "y" enables it, saying what was lost', async () => {
    const id = await disabledLongAgo();
    await enable(id, 'y');
    expect(written).toMatch(/enabled sub_\S+: 0 parked delivery\(ies\) resumed/);
    expect(written).toContain("were past the event log's retention: lost");
    expect((await env.subscriptionStores.subscriptions.get(id))?.status).toBe('active');
  });
});
