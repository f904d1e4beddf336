import { api, type EventWithDeliveries } from '../api';
import { Badge, ErrorLine, Section, useLoad, When } from '../ui';

/** One event: its envelope, its vehicle, and its delivery to each subscription (each linking its attempts). */
export function EventPage({ eventId }: { eventId: string }) {
  const found = useLoad(
    () => api<EventWithDeliveries>(`/events/${encodeURIComponent(eventId)}`),
    [eventId],
    5000,
  );
  const e = found.data?.event;
  return (
    <Section title={`Event ${eventId}`}>
      <p>
        <a href="#/events">← Event log</a>
      </p>
      <ErrorLine error={found.error} />
      {e ? (
        <>
          <dl class="facts">
            <dt>Type</dt>
            <dd>
              <a href={`#/catalogue?type=${encodeURIComponent(e.type)}`}>{e.type}</a> (version{' '}
              {e.schemaVersion}){e.sample ? <Badge value="sample" /> : null}
            </dd>
            <dt>Occurred</dt>
            <dd>
              <When iso={e.occurredAt} />
            </dd>
            <dt>Detected</dt>
            <dd>
              <When iso={e.detectedAt} />
            </dd>
            <dt>Vehicle</dt>
            <dd>
              {e.vehicle ? (
                <a href={`#/vehicles/${encodeURIComponent(e.vehicle.id)}`}>{e.vehicle.vin ?? e.vehicle.id}</a>
              ) : (
                '—'
              )}{' '}
              sequence {e.sequence}
            </dd>
            <dt>Published</dt>
            <dd>{e.published ? <When iso={e.publishedAt} /> : 'not yet'}</dd>
          </dl>
          <h3>Deliveries</h3>
          {found.data?.deliveries.length === 0 ? <p class="muted">No subscription matched it.</p> : null}
          <table>
            <thead>
              <tr>
                <th>Subscription</th>
                <th>Status</th>
                <th>Attempts</th>
                <th>Last answer</th>
                <th>Next attempt</th>
              </tr>
            </thead>
            <tbody>
              {(found.data?.deliveries ?? []).map((d) => (
                <tr key={d.subscriptionId} data-subscription={d.subscriptionId}>
                  <td>
                    <a
                      href={`#/deliveries/${encodeURIComponent(d.subscriptionId)}?eventId=${encodeURIComponent(eventId)}`}
                    >
                      {d.url}
                    </a>
                  </td>
                  <td>
                    <Badge value={d.delivery.status} /> <small>{d.delivery.origin}</small>
                  </td>
                  <td>{d.delivery.attempts}</td>
                  <td>{d.delivery.lastStatusCode ?? d.delivery.lastError ?? '—'}</td>
                  <td>{d.delivery.status === 'pending' ? <When iso={d.delivery.nextAttemptAt} /> : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h3>Envelope</h3>
          <pre>{JSON.stringify(e, null, 2)}</pre>
        </>
      ) : null}
    </Section>
  );
}
