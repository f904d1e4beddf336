import { useState } from 'preact/hooks';
import { api, type SampleBody, type SubscriptionPage, type TestDelivery } from '../api';
import { loadCatalogue } from '../catalogue';
import { Badge, describe, ErrorLine, Section, useLoad } from '../ui';

/**
 * The event catalogue: each type with what triggers it, the reads that reveal it, its worst-case
 * delay, its schema and a sample received by a webhook; and "send a sample of this type" to a
 * subscription (signed like any delivery, `sample: true` in its envelope).
 */
export function CataloguePage({ focus }: { focus?: string }) {
  const catalogue = useLoad(() => loadCatalogue(), []);
  const subs = useLoad(async () => (await api<SubscriptionPage>('/subscriptions?limit=100')).items, []);
  const [target, setTarget] = useState('');
  const [sent, setSent] = useState<{ type: string; text: string } | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const active = (subs.data ?? []).filter((s) => s.status === 'active');
  const chosen = target || active[0]?.id || '';

  const send = async (type: string) => {
    setError(undefined);
    setSent(undefined);
    try {
      const r = await api<TestDelivery>(`/subscriptions/${encodeURIComponent(chosen)}/sample`, {
        method: 'POST',
        body: { type } satisfies SampleBody,
      });
      const a = r.attempt;
      setSent({
        type,
        text: `Sample ${type} sent (${r.eventId}): ${a.outcome}${a.statusCode !== undefined ? ` (HTTP ${a.statusCode})` : ''} in ${Math.round(a.durationMs)} ms`,
      });
    } catch (e) {
      setError(describe(e));
    }
  };

  return (
    <Section title="Event catalogue">
      <form class="inline" aria-label="Sample target" onSubmit={(e) => e.preventDefault()}>
        <label>
          Send samples to
          <select name="subscription" value={chosen} onChange={(e) => setTarget(e.currentTarget.value)}>
            {active.map((s) => (
              <option key={s.id} value={s.id}>
                {s.url}
              </option>
            ))}
          </select>
        </label>
      </form>
      {active.length === 0 ? <p class="muted">No active subscription to send a sample to.</p> : null}
      {sent ? (
        <p class="notice" role="status">
          {sent.text}
        </p>
      ) : null}
      <ErrorLine error={error ?? catalogue.error} />
      {(catalogue.data?.types ?? []).map((t) => (
        <details key={t.type} class="event-type" id={`type-${t.type}`} open={focus === t.type}>
          <summary>
            <code>{t.type}</code> <small>v{t.version}</small>{' '}
            {t.audience === 'opt-in' ? <Badge value="opt-in" /> : null} <span>{t.description}</span>
          </summary>
          <dl class="facts">
            <dt>Trigger</dt>
            <dd>{t.trigger}</dd>
            <dt>Reads</dt>
            <dd>{t.reads}</dd>
            <dt>Worst-case delay</dt>
            <dd>{t.delay}</dd>
          </dl>
          <button type="button" disabled={chosen === ''} onClick={() => void send(t.type)}>
            Send a sample of {t.type}
          </button>
          <details>
            <summary>Schema</summary>
            <pre>{JSON.stringify(t.schema, null, 2)}</pre>
          </details>
          <details>
            <summary>Sample</summary>
            <pre>{JSON.stringify(t.sample ?? null, null, 2)}</pre>
          </details>
        </details>
      ))}
    </Section>
  );
}
