import { useState } from 'preact/hooks';
import { api, type EventPage } from '../api';
import { TypePicker } from '../catalogue';
import { Badge, ErrorLine, Section, useLoad, When } from '../ui';

/** The event log, newest first, filtered by vehicle, type and time; live; payloads pretty-printed. */
export function EventsPage() {
  const [vehicleId, setVehicleId] = useState('');
  const [vin, setVin] = useState('');
  const [type, setType] = useState('');
  const [since, setSince] = useState('');
  const [open, setOpen] = useState<string | undefined>(undefined);
  const query = new URLSearchParams({ limit: '100' });
  if (vehicleId.trim()) query.set('vehicleId', vehicleId.trim());
  else if (vin.trim().length === 17) query.set('vin', vin.trim());
  if (type.trim()) query.set('type', type.trim());
  if (since.trim()) query.set('since', since.trim());
  const q = query.toString();
  const events = useLoad(async () => (await api<EventPage>(`/events?${q}`)).events, [q], 3000);
  const rows = [...(events.data ?? [])].sort((a, b) => b.detectedAt.localeCompare(a.detectedAt));
  return (
    <Section title="Event log">
      <form class="inline" aria-label="Filter events" onSubmit={(e) => e.preventDefault()}>
        <label>
          Vehicle id
          <input name="vehicleId" value={vehicleId} onInput={(e) => setVehicleId(e.currentTarget.value)} />
        </label>
        <label>
          VIN
          <input
            name="vin"
            value={vin}
            placeholder="17 characters"
            onInput={(e) => setVin(e.currentTarget.value)}
          />
        </label>
        <TypePicker value={type} onChange={setType} />
        <label>
          Since (ISO 8601, default: 24 h)
          <input name="since" value={since} onInput={(e) => setSince(e.currentTarget.value)} />
        </label>
      </form>
      <ErrorLine error={events.error} />
      <p class="muted" aria-live="polite">
        {rows.length} event(s), refreshed every 3 s
      </p>
      <table>
        <thead>
          <tr>
            <th>Detected</th>
            <th>Type</th>
            <th>Vehicle</th>
            <th>Seq</th>
            <th>Occurred</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {rows.flatMap((e) => [
            <tr key={e.id} data-event={e.id} data-type={e.type}>
              <td data-label="Detected">
                <When iso={e.detectedAt} />
              </td>
              <td data-label="Type">
                <a href={`#/events/${encodeURIComponent(e.id)}`}>{e.type}</a>
                {e.sample ? <Badge value="sample" /> : null}
              </td>
              <td data-label="Vehicle" title={e.vehicle?.id}>
                {e.vehicle ? (
                  <a href={`#/vehicles/${encodeURIComponent(e.vehicle.id)}`}>
                    {e.vehicle.vin ?? e.vehicle.id}
                  </a>
                ) : (
                  '—'
                )}
              </td>
              <td data-label="Seq">{e.sequence}</td>
              <td data-label="Occurred">
                <When iso={e.occurredAt} />
              </td>
              <td data-label="Payload">
                <button
                  type="button"
                  aria-expanded={open === e.id}
                  onClick={() => setOpen(open === e.id ? undefined : e.id)}
                >
                  {open === e.id ? 'Hide' : 'Payload'}
                </button>
              </td>
            </tr>,
            open === e.id ? (
              <tr key={`${e.id}-payload`}>
                <td colSpan={6}>
                  <pre>{JSON.stringify(e, null, 2)}</pre>
                </td>
              </tr>
            ) : null,
          ])}
        </tbody>
      </table>
    </Section>
  );
}
