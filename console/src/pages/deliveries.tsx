import { useState } from 'preact/hooks';
import {
  type AttemptPage,
  api,
  type DeliveryPage,
  type ReplayBody,
  type ReplayResult,
  type Subscription,
} from '../api';
import { Badge, describe, ErrorLine, Section, useLoad, When } from '../ui';

/** One subscription's delivery attempts (live), dead letters, and replay of one event or a time range. */
export function DeliveriesPage({ subscriptionId }: { subscriptionId: string }) {
  const path = `/subscriptions/${encodeURIComponent(subscriptionId)}`;
  const sub = useLoad(() => api<Subscription>(path), [path]);
  const attempts = useLoad(
    async () => (await api<AttemptPage>(`${path}/deliveries?limit=100`)).items,
    [path],
    3000,
  );
  const dead = useLoad(
    async () => (await api<DeliveryPage>(`${path}/dead-letters?limit=100`)).items,
    [path],
    10000,
  );
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [since, setSince] = useState(new Date(Date.now() - 3600_000).toISOString());
  const [until, setUntil] = useState('');

  const replay = async (body: ReplayBody) => {
    setError(undefined);
    setMessage(undefined);
    try {
      const r = await api<ReplayResult>(`${path}/replay`, { method: 'POST', body });
      const skipped = r.skipped.map((x) => ` ${x.eventId} not sent: ${x.reason}.`).join('');
      setMessage(`Replay ${r.replayId}: ${r.events} event(s) queued.${skipped}`);
      attempts.reload();
    } catch (e) {
      setError(describe(e));
    }
  };

  return (
    <Section title={`Deliveries of ${sub.data?.url ?? subscriptionId}`}>
      <p>
        <a href="#/subscriptions">← Subscriptions</a> · state <Badge value={sub.data?.status} />
      </p>
      <form
        class="inline"
        aria-label="Replay a time range"
        onSubmit={(e) => {
          e.preventDefault();
          void replay({ since, ...(until ? { until } : {}) });
        }}
      >
        <label>
          Replay events detected since
          <input name="since" value={since} onInput={(e) => setSince(e.currentTarget.value)} />
        </label>
        <label>
          until (optional)
          <input name="until" value={until} onInput={(e) => setUntil(e.currentTarget.value)} />
        </label>
        <button type="submit">Replay range</button>
      </form>
      {message ? (
        <p class="notice" role="status">
          {message}
        </p>
      ) : null}
      <ErrorLine error={error ?? attempts.error} />
      <table>
        <thead>
          <tr>
            <th>Started</th>
            <th>Event</th>
            <th>Attempt</th>
            <th>Outcome</th>
            <th>Response</th>
            <th>Time</th>
            <th>Next retry</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(attempts.data ?? []).map((a) => (
            <tr key={`${a.deliveryId}-${a.attemptNumber}`} data-event={a.eventId}>
              <td>
                <When iso={a.startedAt} />
              </td>
              <td>
                {a.eventType}{' '}
                <a href={`#/events/${encodeURIComponent(a.eventId)}`}>
                  <small>{a.eventId}</small>
                </a>
              </td>
              <td>{a.attemptNumber}</td>
              <td>
                <Badge value={a.outcome} /> <small>{a.decision}</small>
              </td>
              <td title={a.responseExcerpt ?? a.error ?? ''}>{a.statusCode ?? a.error ?? '—'}</td>
              <td>{Math.round(a.durationMs)} ms</td>
              <td>
                <When iso={a.nextAttemptAt} />
              </td>
              <td>
                {a.eventType === 'webhook.test' ? null : (
                  <button
                    type="button"
                    onClick={() => {
                      void replay({ eventIds: [a.eventId] });
                    }}
                  >
                    Replay
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Dead letters</h3>
      <p class="muted">{(dead.data ?? []).length} delivery(ies) gave up after every retry.</p>
    </Section>
  );
}
