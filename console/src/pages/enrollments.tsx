import { api, itemsOf, type Json } from '../api';
import { Badge, ErrorLine, Section, useLoad, When } from '../ui';

interface Enrollment extends Json {
  id: string;
  kind: string;
  brand: string;
  status: string;
  userId?: string;
  vin?: string;
  contract?: string;
}
interface Vehicle extends Json {
  id: string;
  vin: string;
  paused: boolean;
  lastPolledAt?: string;
  lastChangeAt?: string;
}

/** Enrollments and their vehicles: status, last poll, last change. `highlight`: just enrolled. */
export function EnrollmentsPage({ highlight }: { highlight?: string }) {
  const list = useLoad(
    async () => {
      const enrollments = itemsOf<Enrollment>(await api('/enrollments?limit=100'), 'enrollments');
      return Promise.all(
        enrollments.map(async (e) => ({
          enrollment: e,
          vehicles: itemsOf<Vehicle>(await api(`/enrollments/${encodeURIComponent(e.id)}`), 'vehicles'),
        })),
      );
    },
    [],
    5000,
  );
  return (
    <Section title="Enrollments and vehicles">
      {highlight ? (
        <p class="notice" role="status">
          Enrolled: <code>{highlight}</code>. Its vehicles are listed below.
        </p>
      ) : null}
      <p class="muted">
        OAuth users enroll through <code>/oauth/&lt;brand&gt;/authorize</code>; fleet contracts with{' '}
        <code>carhook enroll contract</code>.
      </p>
      <ErrorLine error={list.error} />
      <table>
        <thead>
          <tr>
            <th>Enrollment</th>
            <th>Kind</th>
            <th>Status</th>
            <th>Vehicle (VIN)</th>
            <th>Polling</th>
            <th>Last poll</th>
            <th>Last change</th>
          </tr>
        </thead>
        <tbody>
          {(list.data ?? []).flatMap(({ enrollment: e, vehicles }) =>
            (vehicles.length > 0 ? vehicles : [undefined]).map((v, i) => (
              <tr key={`${e.id}-${v?.id ?? 'none'}`} class={e.id === highlight ? 'highlight' : undefined}>
                <td>{i === 0 ? <code>{e.id}</code> : null}</td>
                <td>{i === 0 ? `${e.kind} · ${e.brand}` : null}</td>
                <td>{i === 0 ? <Badge value={e.status} /> : null}</td>
                <td>
                  {v ? (
                    <a href={`#/vehicles/${encodeURIComponent(v.id)}`} title={v.id}>
                      {v.vin}
                    </a>
                  ) : (
                    <span class="muted">no vehicle yet</span>
                  )}
                </td>
                <td>{v ? <Badge value={v.paused ? 'paused' : 'active'} /> : null}</td>
                <td>
                  <When iso={v?.lastPolledAt} />
                </td>
                <td>
                  <When iso={v?.lastChangeAt} />
                </td>
              </tr>
            )),
          )}
        </tbody>
      </table>
    </Section>
  );
}
