import { useState } from 'preact/hooks';
import { api } from '../api';
import { Badge, describe, ErrorLine, Section, useLoad, When } from '../ui';
import { VehicleStatePanel } from './vehicle-state';

/** `0.0022 %`, `3.3 %`: two significant digits, whatever the size. */
const percent = (share: number) => `${Number((share * 100).toPrecision(2))} %`;
const every = (ms: number) =>
  ms >= 3_600_000 ? `${Math.round(ms / 360_000) / 10} h` : `${Math.round(ms / 60_000)} min`;

/**
 * One vehicle: its enrollment and whether it can be polled, the last and next read of each kind,
 * its learned change rate and share of the quota, its recent events as a timeline; pause and resume;
 * below, its latest known state from what Carhook stores.
 */
export function VehiclePage({ vehicleId }: { vehicleId: string }) {
  const params = { id: vehicleId };
  const detail = useLoad(() => api('GET /vehicles/{id}', { params }), [vehicleId], 5000);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const d = detail.data;
  const act = async (action: 'pause' | 'resume') => {
    setError(undefined);
    try {
      const v = await api(`POST /vehicles/{id}/${action}`, { params });
      setMessage(
        v.paused ? `Paused ${v.vin}: it is not polled until resumed` : `Resumed ${v.vin}: polled again`,
      );
      detail.reload();
    } catch (e) {
      setError(describe(e));
    }
  };
  return (
    <>
      <Section title={d ? `Vehicle ${d.vehicle.vin}` : `Vehicle ${vehicleId}`}>
        <p>
          <a href="#/enrollments">← Vehicles</a>
        </p>
        <ErrorLine error={error ?? detail.error} />
        {message ? (
          <p class="notice" role="status">
            {message}
          </p>
        ) : null}
        {d ? (
          <>
            <dl class="facts">
              <dt>Vehicle</dt>
              <dd>
                <code>{d.vehicle.id}</code> {d.vehicle.brandName ?? d.vehicle.brand ?? ''}{' '}
                {d.vehicle.model ?? ''} {d.vehicle.subModel ?? ''}
              </dd>
              <dt>Enrollment</dt>
              <dd>
                <code>{d.enrollment.id}</code> {d.enrollment.kind} <Badge value={d.enrollment.status} />
              </dd>
              <dt>Connection</dt>
              <dd data-testid="connection">
                <Badge value={d.connection.state} />
                {d.vehicle.pauseReason ? <small> {d.vehicle.pauseReason}</small> : null}
                {d.connection.tokenExpiresAt ? (
                  <small>
                    {' '}
                    token {d.connection.tokenValid ? 'valid' : 'expired (refreshed when next used)'} until{' '}
                    <When iso={d.connection.tokenExpiresAt} />
                  </small>
                ) : null}
                {d.connection.reauthorizationUrl ? (
                  <small>
                    {' '}
                    · the user authorizes again at{' '}
                    <a href={d.connection.reauthorizationUrl}>{d.connection.reauthorizationUrl}</a>
                  </small>
                ) : null}
              </dd>
              <dt>Learned change rate</dt>
              <dd>
                {d.changeRate
                  ? `${d.changeRate.eventsPerHour} change(s) per hour (${d.changeRate.observedHours} h observed), ${d.changeRate.activeAlerts} alert(s) active`
                  : 'not learned yet (no poll observed)'}
              </dd>
              <dt>Share of the quota</dt>
              <dd>
                at least {d.quota.readsPerHourAtLeast} read(s) per hour of {d.quota.perHour} (
                {percent(d.quota.shareAtLeast)}): its events at least every {every(d.quota.guaranteeMs)}
              </dd>
            </dl>
            <div class="actions">
              {d.vehicle.paused ? (
                <button type="button" onClick={() => void act('resume')}>
                  Resume polling
                </button>
              ) : (
                <button type="button" onClick={() => void act('pause')}>
                  Pause polling
                </button>
              )}
            </div>
            <h3>Reads</h3>
            <table>
              <thead>
                <tr>
                  <th>Read</th>
                  <th>Last</th>
                  <th>Next at the latest</th>
                  <th>Every</th>
                  <th>How</th>
                </tr>
              </thead>
              <tbody>
                {d.reads.map((r) => (
                  <tr key={r.kind} data-read={r.kind}>
                    <td>{r.kind}</td>
                    <td>
                      <When iso={r.lastAt} /> <small>{r.source}</small>
                    </td>
                    <td>
                      <When iso={r.nextBy} />
                    </td>
                    <td>{every(r.everyMs)}</td>
                    <td>
                      <small>{r.note}</small>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <h3>Recent events</h3>
            {d.recentEvents.length === 0 ? <p class="muted">No event in the last 7 days.</p> : null}
            <ol class="timeline">
              {d.recentEvents.map((e) => (
                <li key={e.id} data-event={e.id}>
                  <When iso={e.detectedAt} /> <small>#{e.sequence}</small>{' '}
                  <a href={`#/events/${encodeURIComponent(e.id)}`}>{e.type}</a>{' '}
                  <small>
                    occurred <When iso={e.occurredAt} />
                  </small>
                </li>
              ))}
            </ol>
          </>
        ) : null}
      </Section>
      <VehicleStatePanel vehicleId={vehicleId} />
    </>
  );
}
