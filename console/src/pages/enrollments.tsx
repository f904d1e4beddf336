import { api, type EnrollmentDetail, type EnrollmentPage } from '../api';
import { Badge, ErrorLine, Section, useLoad, When } from '../ui';

/** Enrollments and their vehicles: status, polling, last change. `highlight`: just enrolled. */
export function EnrollmentsPage({ highlight }: { highlight?: string }) {
  const list = useLoad(
    async () => {
      const { enrollments } = await api<EnrollmentPage>('/enrollments?limit=100');
      return Promise.all(
        enrollments.map(async (e) => ({
          enrollment: e,
          vehicles: (await api<EnrollmentDetail>(`/enrollments/${encodeURIComponent(e.id)}`)).vehicles,
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
            <th>Last change</th>
          </tr>
        </thead>
        <tbody>
          {(list.data ?? []).flatMap(({ enrollment: e, vehicles }) =>
            (vehicles.length > 0 ? vehicles : [undefined]).map((v, i) => (
              <tr key={`${e.id}-${v?.id ?? 'none'}`} class={e.id === highlight ? 'highlight' : undefined}>
                <td data-label="Enrollment">{i === 0 ? <code>{e.id}</code> : null}</td>
                <td data-label="Kind">{i === 0 ? `${e.kind} · ${e.brand}` : null}</td>
                <td data-label="Status">{i === 0 ? <Badge value={e.status} /> : null}</td>
                <td data-label="Vehicle (VIN)">
                  {v ? (
                    <a href={`#/vehicles/${encodeURIComponent(v.id)}`} title={v.id}>
                      {v.vin}
                    </a>
                  ) : (
                    <span class="muted">no vehicle yet</span>
                  )}
                </td>
                <td data-label="Polling">{v ? <Badge value={v.paused ? 'paused' : 'active'} /> : null}</td>
                <td data-label="Last change">
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
