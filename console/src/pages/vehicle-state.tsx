import { api } from '../api';
import { ErrorLine, Section, useLoad, When } from '../ui';

/**
 * One vehicle's latest known state (GET /vehicles/{id}/state), beside its vehicle page: what
 * Carhook stores, each part with the time it was read; no request to the API.
 */
export function VehicleStatePanel({ vehicleId }: { vehicleId: string }) {
  const state = useLoad(
    () => api('GET /vehicles/{id}/state', { params: { id: vehicleId } }),
    [vehicleId],
    5000,
  );
  const s = state.data;
  const alerts = s?.activeAlerts ?? [];
  const maintenance = s?.maintenance;
  const trip = s?.lastTrip;
  const collision = s?.lastCollision;
  const position = s?.position;
  const fuel = s?.fuel;
  return (
    <Section title="Latest known state">
      <p class="muted">
        From what Carhook stores (no request to the API), up to event sequence {s?.sequence ?? '—'}.
      </p>
      <ErrorLine error={state.error} />
      {s && s.polled !== true ? <p class="muted">Not polled yet: nothing known.</p> : null}
      {s && s.polled === true ? (
        <table aria-label="Latest known state">
          <thead>
            <tr>
              <th>What</th>
              <th>Value</th>
              <th>When</th>
              <th>Read</th>
            </tr>
          </thead>
          <tbody>
            {alerts.length === 0 ? (
              <tr>
                <td>Active alerts</td>
                <td>none</td>
                <td />
                <td />
              </tr>
            ) : (
              alerts.map((a) => (
                <tr key={a.key}>
                  <td>Active alert</td>
                  <td>
                    {a.message} {a.severity ? `(${a.severity})` : ''}
                  </td>
                  <td>
                    <When iso={a.startedAt} />
                  </td>
                  <td>
                    <When iso={a.readAt} />
                  </td>
                </tr>
              ))
            )}
            <tr>
              <td>Maintenance</td>
              <td>{maintenance ? `${maintenance.days} days / ${maintenance.mileageKm} km left` : '—'}</td>
              <td>
                <When iso={maintenance?.updatedAt} />
              </td>
              <td>
                <When iso={maintenance?.readAt} />
              </td>
            </tr>
            <tr>
              <td>Last trip</td>
              <td>
                {trip
                  ? `${String(trip.data.tripId)}${trip.data.distanceKm !== undefined ? `, ${String(trip.data.distanceKm)} km` : ''}`
                  : '—'}
              </td>
              <td>
                <When iso={trip?.occurredAt} />
              </td>
              <td>
                <When iso={trip?.readAt} />
              </td>
            </tr>
            <tr>
              <td>Last collision</td>
              <td>{collision ? String(collision.data.maxLevel) : 'none known'}</td>
              <td>
                <When iso={collision?.occurredAt} />
              </td>
              <td>
                <When iso={collision?.readAt} />
              </td>
            </tr>
            <tr>
              <td>Position</td>
              <td>{position ? `${position.lat}, ${position.lon}` : '—'}</td>
              <td>
                <When iso={position?.at} />
              </td>
              <td>
                <When iso={position?.readAt} />
              </td>
            </tr>
            <tr>
              <td>Fuel level</td>
              <td>{fuel ? `${fuel.level} %` : '—'}</td>
              <td>
                <When iso={fuel?.at} />
              </td>
              <td>
                <When iso={fuel?.readAt} />
              </td>
            </tr>
          </tbody>
        </table>
      ) : null}
    </Section>
  );
}
