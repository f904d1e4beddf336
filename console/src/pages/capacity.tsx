import { api } from '../api';
import { ErrorLine, Section, useLoad } from '../ui';

const span = (s: number | null | undefined): string => {
  if (s === null || s === undefined) return 'never';
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 6) / 10} min`;
  return `${Math.round(s / 360) / 10} h`;
};

/** The capacity model beside the quota chart (GET /capacity). */
export function CapacityPanel() {
  const cap = useLoad(() => api('GET /capacity'), [], 30_000);
  const c = cap.data;
  return (
    <Section title="Capacity">
      <ErrorLine error={cap.error} />
      {c ? (
        <p>
          {c.vehicles} vehicles, {c.changesPerHour} changes an hour learned; {c.quota.readsPerCycle} reads a
          cycle planned ({c.quota.reservePerCycle} kept for follow-ups) under {c.quota.limit} requests per{' '}
          {c.quota.windowSeconds} s.
        </p>
      ) : null}
      <table aria-label="Capacity per kind">
        <thead>
          <tr>
            <th>Kind</th>
            <th>Guarantee</th>
            <th>Mean lag</th>
            <th>p95 lag</th>
            <th>Target (p95)</th>
            <th>Vehicles that fit</th>
            <th>Quota for target</th>
          </tr>
        </thead>
        <tbody>
          {(c?.kinds ?? []).map((k) => (
            <tr key={k.kind} data-kind={k.kind}>
              <td>{k.kind}</td>
              <td>{span(k.guaranteeS)}</td>
              <td>{span(k.meanS)}</td>
              <td>{span(k.p95S)}</td>
              <td>{k.target ? `${span(k.target.s)} ${k.target.met ? 'met' : 'missed'}` : '—'}</td>
              <td>
                {k.target?.vehiclesThatFit === null || k.target === undefined
                  ? '—'
                  : `${k.target.vehiclesThatFit} (${(k.target.moreVehicles ?? 0) >= 0 ? '+' : ''}${k.target.moreVehicles})`}
              </td>
              <td>{k.target ? (k.target.quotaForTarget ?? 'none') : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="muted">
        From the planner's model: the rates it learned and the quota it follows. A target is met when the
        predicted p95 is within it.
      </p>
    </Section>
  );
}
