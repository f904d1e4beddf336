import { api } from '../api';
import { ErrorLine, Section, useLoad } from '../ui';
import { CapacityPanel } from './capacity';

const W = 720;
const H = 200;
const PAD = 36;
/** Room under the bars for the time labels. */
const AXIS = 18;

/** Bars per minute against a horizontal limit line; the SVG scales to the page's width. */
function Bars(props: {
  title: string;
  values: number[];
  limit?: number;
  /** Bars above this are drawn at it (their tooltip keeps the value). */
  cap?: number;
  unit: string;
  labels: string[];
}) {
  const shown = props.values.map((v) => (props.cap === undefined ? v : Math.min(v, props.cap)));
  const top = Math.max(1, props.limit ?? 0, ...shown) * 1.1;
  const step = (W - PAD) / Math.max(1, props.values.length);
  const y = (v: number) => H - AXIS - PAD / 2 - (v / top) * (H - AXIS - PAD);
  return (
    <figure>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={props.title} class="chart">
        <title>{props.title}</title>
        <line x1={PAD} x2={W} y1={y(0)} y2={y(0)} class="axis" />
        <text x={0} y={y(top / 1.1) + 4} class="tick">
          {Math.round(top / 1.1)}
        </text>
        {shown.map((v, i) => (
          <rect
            key={props.labels[i]}
            x={PAD + i * step + 1}
            y={y(v)}
            width={Math.max(1, step - 2)}
            height={Math.max(0, y(0) - y(v))}
            class={v < (props.values[i] ?? 0) ? 'bar clipped' : 'bar'}
          >
            <title>{`${props.labels[i]}: ${Math.round(props.values[i] ?? 0)} ${props.unit}`}</title>
          </rect>
        ))}
        {props.labels.map((label, i) =>
          // A time label every 10 minutes (and the last minute), under its bar.
          i % 10 === 0 || i === props.labels.length - 1 ? (
            <text
              key={`t-${label}`}
              x={PAD + i * step + step / 2}
              y={H - 4}
              class="tick time"
              text-anchor="middle"
            >
              {label}
            </text>
          ) : null,
        )}
        {props.limit === undefined ? null : (
          <>
            <line x1={PAD} x2={W} y1={y(props.limit)} y2={y(props.limit)} class="limit" />
            <text x={W - 4} y={y(props.limit) - 4} class="tick" text-anchor="end">
              limit {props.limit}
            </text>
          </>
        )}
      </svg>
      <figcaption>{props.title}</figcaption>
    </figure>
  );
}

/** Requests per minute against the quota, and detection lag (p95 per minute), from the runtime. */
export function QuotaPage() {
  const recent = useLoad(() => api('GET /metrics/recent'), [], 10_000);
  const minutes = recent.data?.minutes ?? [];
  const labels = minutes.map((m) => m.minute.slice(11, 16));
  const perMinute = recent.data
    ? (recent.data.quota.limit * 60) / recent.data.quota.windowSeconds
    : undefined;
  const last = minutes.at(-2);
  const history = minutes.reduce((n, m) => n + m.historyFound, 0);
  return (
    <>
      <Section title="Quota and detection lag">
        <ErrorLine error={recent.error} />
        {recent.data ? (
          <p>
            Quota <strong>{recent.data.quota.limit}</strong> requests per {recent.data.quota.windowSeconds} s.
            Last full minute: <strong data-testid="last-requests">{last?.apiRequests ?? 0}</strong> requests,{' '}
            {last?.apiRateLimited ?? 0} answered 429, {last?.pollsCompleted ?? 0} polls,{' '}
            {last?.eventsPublished ?? 0} events.
          </p>
        ) : null}
        <Bars
          title="API requests per minute"
          values={minutes.map((m) => m.apiRequests)}
          {...(perMinute === undefined ? {} : { limit: perMinute })}
          unit="requests"
          labels={labels}
        />
        <Bars
          title="Detection lag per minute, p95 (seconds)"
          values={minutes.map((m) => (m.lagMs.p95 ?? 0) / 1000)}
          unit="s"
          labels={labels}
        />
        <p class="muted" data-testid="history">
          Lag is from when a change happened (the API's record) to when Carhook saw it, by minute of detection
          (UTC). What a first poll found already there (an alert active since last year) is history, not a
          lag: {history} such event(s) this hour, not counted above.
        </p>
      </Section>
      <CapacityPanel />
    </>
  );
}
