import { useState } from 'preact/hooks';
import {
  type Attempt,
  type AttemptPage,
  api,
  type DeliveryPage,
  type RecoverBody,
  type RecoverResult,
  type ReplayBody,
  type ReplayResult,
  type Subscription,
} from '../api';
import { TypePicker } from '../catalogue';
import { Badge, describe, ErrorLine, Section, useLoad, When } from '../ui';

export interface DeliveryFilter {
  readonly status?: string;
  readonly eventType?: string;
  readonly eventId?: string;
  readonly since?: string;
  readonly until?: string;
}

const query = (f: DeliveryFilter) => {
  const q = new URLSearchParams({ limit: '100' });
  for (const [k, v] of Object.entries(f)) if (typeof v === 'string' && v.trim() !== '') q.set(k, v.trim());
  return q.toString();
};

/**
 * One subscription's attempt log (live), filtered by status, event type, event id and time; each
 * attempt's request headers and answer (status, headers, the first 4 KB of the body) or its error
 * class; replay of one event; recovering what was dead-lettered since a time; the dead letters.
 */
export function DeliveriesPage(props: { subscriptionId: string; initial?: DeliveryFilter }) {
  const path = `/subscriptions/${encodeURIComponent(props.subscriptionId)}`;
  const sub = useLoad(() => api<Subscription>(path), [path]);
  const [filter, setFilter] = useState<DeliveryFilter>(props.initial ?? {});
  const q = query(filter);
  const attempts = useLoad(
    async () => (await api<AttemptPage>(`${path}/deliveries?${q}`)).items,
    [path, q],
    3000,
  );
  const dead = useLoad(
    async () => (await api<DeliveryPage>(`${path}/dead-letters?limit=100`)).items,
    [path],
    10000,
  );
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [open, setOpen] = useState<string | undefined>(undefined);
  const [recoverSince, setRecoverSince] = useState(new Date(Date.now() - 86_400_000).toISOString());
  const set = (key: keyof DeliveryFilter) => (value: string) => setFilter({ ...filter, [key]: value });

  const run = async (what: () => Promise<string>) => {
    setError(undefined);
    setMessage(undefined);
    try {
      setMessage(await what());
      attempts.reload();
      dead.reload();
    } catch (e) {
      setError(describe(e));
    }
  };
  const replay = (body: ReplayBody) =>
    run(async () => {
      const r = await api<ReplayResult>(`${path}/replay`, { method: 'POST', body });
      const skipped = r.skipped.map((x) => ` ${x.eventId} not sent: ${x.reason}.`).join('');
      return `Replay ${r.replayId}: ${r.events} event(s) queued.${skipped}`;
    });

  return (
    <Section title={`Deliveries of ${sub.data?.url ?? props.subscriptionId}`}>
      <p>
        <a href="#/subscriptions">← Subscriptions</a> · state <Badge value={sub.data?.status} />
        {sub.data ? (
          <>
            {' '}
            · health <Badge value={sub.data.health.state} />
          </>
        ) : null}
      </p>
      <form class="inline" aria-label="Filter deliveries" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select
            name="status"
            value={filter.status ?? ''}
            onChange={(e) => set('status')(e.currentTarget.value)}
          >
            <option value="">all</option>
            <option value="succeeded">succeeded</option>
            <option value="failed">failed</option>
          </select>
        </label>
        <TypePicker value={filter.eventType ?? ''} onChange={set('eventType')} />
        <label>
          Event id
          <input
            name="eventId"
            value={filter.eventId ?? ''}
            placeholder="evt_…"
            onInput={(e) => set('eventId')(e.currentTarget.value)}
          />
        </label>
        <label>
          Since
          <input
            name="since"
            value={filter.since ?? ''}
            placeholder="2026-11-22T10:00:00Z"
            onInput={(e) => set('since')(e.currentTarget.value)}
          />
        </label>
        <label>
          Until
          <input
            name="until"
            value={filter.until ?? ''}
            onInput={(e) => set('until')(e.currentTarget.value)}
          />
        </label>
      </form>
      <form
        class="inline"
        aria-label="Recover failed deliveries"
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => {
            const r = await api<RecoverResult>(`${path}/recover`, {
              method: 'POST',
              body: { since: recoverSince } satisfies RecoverBody,
            });
            return `Recover ${r.recoverId}: ${r.deliveries} dead-lettered event(s) queued again`;
          });
        }}
      >
        <label>
          Recover failed since
          <input
            name="recoverSince"
            value={recoverSince}
            onInput={(e) => setRecoverSince(e.currentTarget.value)}
          />
        </label>
        <button type="submit">Recover failed</button>
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
          {(attempts.data ?? []).flatMap((a) => {
            const key = `${a.deliveryId}-${a.attemptNumber}`;
            return [
              <tr key={key} data-event={a.eventId}>
                <td data-label="Started">
                  <When iso={a.startedAt} />
                </td>
                <td data-label="Event">
                  {a.eventType}{' '}
                  <a href={`#/events/${encodeURIComponent(a.eventId)}`}>
                    <small>{a.eventId}</small>
                  </a>
                </td>
                <td data-label="Attempt">{a.attemptNumber}</td>
                <td data-label="Outcome">
                  <Badge value={a.outcome} /> <small>{a.decision}</small>
                </td>
                <td data-label="Response">{a.statusCode ?? a.errorClass ?? a.error ?? '—'}</td>
                <td data-label="Time">{Math.round(a.durationMs)} ms</td>
                <td data-label="Next retry">
                  <When iso={a.nextAttemptAt} />
                </td>
                <td data-label="Actions" class="actions">
                  <button
                    type="button"
                    aria-expanded={open === key}
                    onClick={() => setOpen(open === key ? undefined : key)}
                  >
                    {open === key ? 'Hide' : 'Details'}
                  </button>
                  {a.eventType === 'webhook.test' ? null : (
                    <button type="button" onClick={() => void replay({ eventIds: [a.eventId] })}>
                      Replay
                    </button>
                  )}
                </td>
              </tr>,
              open === key ? (
                <tr key={`${key}-detail`}>
                  <td colSpan={8}>
                    <AttemptDetail attempt={a} />
                  </td>
                </tr>
              ) : null,
            ];
          })}
        </tbody>
      </table>
      <h3>Dead letters</h3>
      <p class="muted">{(dead.data ?? []).length} delivery(ies) gave up after every retry.</p>
      {(dead.data ?? []).length > 0 ? (
        <table>
          <thead>
            <tr>
              <th>Event</th>
              <th>Attempts</th>
              <th>Last answer</th>
              <th>Last attempt</th>
            </tr>
          </thead>
          <tbody>
            {(dead.data ?? []).map((d) => (
              <tr key={d.id} data-dead={d.eventId}>
                <td data-label="Event">
                  {d.eventType} <a href={`#/events/${encodeURIComponent(d.eventId)}`}>{d.eventId}</a>
                </td>
                <td data-label="Attempts">{d.attempts}</td>
                <td data-label="Last answer">{d.lastStatusCode ?? d.lastError ?? '—'}</td>
                <td data-label="Last attempt">
                  <When iso={d.lastAttemptAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </Section>
  );
}

function Headers({
  title,
  headers,
}: {
  title: string;
  headers: Readonly<Record<string, string>> | undefined;
}) {
  if (!headers) return null;
  return (
    <>
      <h4>{title}</h4>
      <pre>
        {Object.entries(headers)
          .map(([k, v]) => `${k}: ${v}`)
          .join('\n')}
      </pre>
    </>
  );
}

/** What was sent and what came back (or why nothing did). */
function AttemptDetail({ attempt: a }: { attempt: Attempt }) {
  return (
    <div class="attempt-detail" data-testid="attempt-detail">
      <Headers title="Request headers" headers={a.requestHeaders} />
      {a.statusCode !== undefined ? (
        <>
          <h4>Response {a.statusCode}</h4>
          <Headers title="Response headers" headers={a.responseHeaders} />
          {a.responseExcerpt ? (
            <>
              <h4>Response body{a.responseTruncated ? ' (first 4 KB)' : ''}</h4>
              <pre>{a.responseExcerpt}</pre>
            </>
          ) : null}
        </>
      ) : null}
      {a.errorClass && a.errorClass !== 'http' ? (
        <p class="error">
          Error ({a.errorClass}): {a.error}
        </p>
      ) : null}
    </div>
  );
}
