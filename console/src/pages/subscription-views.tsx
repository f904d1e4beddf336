import type { SubscriptionHealthView, TestDelivery } from '../api';
import { Badge, When } from '../ui';

/** The health column: the state, the streak or the 24 h success rate, the last success. */
export function Health({ health: h }: { health: SubscriptionHealthView }) {
  const rate = h.last24h.successRate;
  return (
    <div class="health">
      <Badge value={h.state} />{' '}
      {h.state === 'failing' ? (
        <span>
          {h.consecutiveFailures} failure(s) since <When iso={h.failingSince} />
          {h.lastFailure ? (
            <small>
              {' '}
              last:{' '}
              {h.lastFailure.statusCode !== undefined
                ? `HTTP ${h.lastFailure.statusCode}`
                : h.lastFailure.outcome}
            </small>
          ) : null}
        </span>
      ) : null}
      <br />
      <small>
        24 h: {rate === null ? 'no attempt' : `${Math.round(rate * 1000) / 10} % of ${h.last24h.attempts}`}
        {h.retrying.deliveries > 0 ? ` · ${h.retrying.deliveries} retrying` : ''} · last success{' '}
        <When iso={h.lastSuccessAt} />
      </small>
      {h.disablesAt ? (
        <small class="error">
          <br />
          disabled by a failure after <When iso={h.disablesAt} />
        </small>
      ) : null}
    </div>
  );
}

/** "Test event sent to …: success (HTTP 204) in 12 ms": what the endpoint answered. */
export function testOutcome(id: string, r: TestDelivery): string {
  const a = r.attempt;
  const answer = a.statusCode !== undefined ? ` (HTTP ${a.statusCode})` : a.error ? ` (${a.error})` : '';
  return `Test event sent to ${id}: ${a.outcome}${answer} in ${Math.round(a.durationMs)} ms`;
}
