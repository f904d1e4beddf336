import { describe, expect, it } from 'vitest';
import { killable, killableFetch, WorkerKilled, WorkerLife } from '../../bench/support/kill';

/** A port whose calls are recorded, to see which ones a killed worker made. */
function port() {
  const calls: string[] = [];
  return {
    calls,
    store: {
      inner: {
        async put(x: string) {
          calls.push(`put ${x}`);
          return x;
        },
        async saveTokens() {
          calls.push('saveTokens');
          return true;
        },
      },
      async get(x: string) {
        calls.push(`get ${x}`);
        return x;
      },
    },
  };
}

describe('a killable worker', () => {
  it('killed before step k never makes call k nor any later call', async () => {
    const p = port();
    const life = new WorkerLife(2, 'before');
    const store = killable(p.store, life, 2);
    await expect(store.get('a')).resolves.toBe('a');
    await expect(store.inner.put('b')).rejects.toBeInstanceOf(WorkerKilled);
    await expect(store.get('c')).rejects.toBeInstanceOf(WorkerKilled);
    expect(p.calls).toEqual(['get a']);
    expect(life.dead).toBe(true);
  });

  it('killed after step k made call k but lost its answer', async () => {
    const p = port();
    const life = new WorkerLife(1, 'after');
    const store = killable(p.store, life, 2);
    await expect(store.inner.put('a')).rejects.toBeInstanceOf(WorkerKilled);
    await expect(store.get('b')).rejects.toBeInstanceOf(WorkerKilled);
    expect(p.calls).toEqual(['put a']);
  });

  it('never dies between a token refresh answer and the token write: the kill comes right after', async () => {
    const p = port();
    const life = new WorkerLife(1, 'before');
    const fetcher = killableFetch(life, async () => new Response('{}'));
    const store = killable(p.store, life, 2);
    await expect(fetcher('http://127.0.0.1:9/accounts/signin/v1/x/oauth2/token')).resolves.toBeInstanceOf(
      Response,
    );
    await expect(store.inner.saveTokens()).resolves.toBe(true);
    await expect(store.get('next')).rejects.toBeInstanceOf(WorkerKilled);
    expect(p.calls).toEqual(['saveTokens']);
  });

  it('lives forever without a kill point', async () => {
    const p = port();
    const life = new WorkerLife();
    const store = killable(p.store, life, 2);
    for (let i = 0; i < 50; i++) await store.get(String(i));
    expect(life.steps).toBe(50);
    expect(life.dead).toBe(false);
  });
});
