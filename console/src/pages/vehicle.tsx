import { api, type Json } from '../api';
import { ErrorLine, Section, useLoad, When } from '../ui';

interface Read extends Json {
  eventId: string;
  occurredAt: string;
  readAt: string;
  data: Json;
}

/**
 * One vehicle's latest known state (GET /vehicles/{id}/state): what Carhook stores, each part with
 * the time it was read; no request to the API.
 */
export function VehiclePage({ vehicleId }: { vehicleId: string }) {
  const state = useLoad(() => api(`/vehicles/${encodeURIComponent(vehicleId)}/state`), [vehicleId], 5000);
  const s = state.data;
  const vehicle = (s?.vehicle ?? {}) as Json;
  const alerts = (s?.activeAlerts ?? []) as Json[];
  const maintenance = s?.maintenance as Json | undefined;
  const trip = s?.lastTrip as Read | undefined;
  const collision = s?.lastCollision as Read | undefined;
  const position = s?.position as Json | undefined;
  const fuel = s?.fuel as Json | undefined;
  return (
    <Section title={`Vehicle ${String(vehicle.vin ?? vehicleId)}`}>
      <p class="muted">
        From what Carhook stores (no request to the API), up to event sequence {String(s?.sequence ?? '—')}.
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
                <tr key={String(a.key)}>
                  <td>Active alert</td>
                  <td>
                    {String(a.message)} {a.severity ? `(${String(a.severity)})` : ''}
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
              <td>
                {maintenance
                  ? `${String(maintenance.days)} days / ${String(maintenance.mileageKm)} km left`
                  : '—'}
              </td>
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
              <td>{position ? `${String(position.lat)}, ${String(position.lon)}` : '—'}</td>
              <td>
                <When iso={position?.at} />
              </td>
              <td>
                <When iso={position?.readAt} />
              </td>
            </tr>
            <tr>
              <td>Fuel level</td>
              <td>{fuel ? `${String(fuel.level)} %` : '—'}</td>
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
