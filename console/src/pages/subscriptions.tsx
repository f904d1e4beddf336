import { useState } from 'preact/hooks';
import {
  api,
  type Backlog,
  type CreateSubscriptionBody,
  type Subscription,
  type SubscriptionCreated,
  type UpdateSubscriptionBody,
} from '../api';
import { useEventTypes } from '../catalogue';
import { Badge, Confirm, describe, ErrorLine, Section, useLoad, When } from '../ui';
import { Health, testOutcome } from './subscription-views';

const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

/** Subscriptions: create, edit, enable/disable, rotate the secret, send a test event. */
export function SubscriptionsPage() {
  const subs = useLoad(
    async () => (await api('GET /subscriptions', { query: { limit: '100' } })).items,
    [],
    5000,
  );
  const [secret, setSecret] = useState<{ id: string; secret: string } | undefined>(undefined);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [asking, setAsking] = useState<Asking | undefined>(undefined);

  /** Runs an action; its message is `what`, or what `run` returns. */
  const act = async (what: string, run: () => Promise<unknown>) => {
    setError(undefined);
    setMessage(undefined);
    setAsking(undefined);
    try {
      const said = await run();
      setMessage(typeof said === 'string' ? said : what);
      subs.reload();
    } catch (e) {
      setError(describe(e));
    }
  };

  return (
    <Section title="Subscriptions">
      <CreateForm
        onCreated={(created) => {
          setSecret({ id: created.id, secret: created.secret });
          setMessage(`Created ${created.id}`);
          subs.reload();
        }}
      />
      {secret ? (
        <div class="secret" role="status">
          <p>
            Signing secret of <code>{secret.id}</code>, shown once: copy it now.
          </p>
          <code class="value" data-testid="secret">
            {secret.secret}
          </code>
          <button type="button" onClick={() => setSecret(undefined)}>
            Done
          </button>
        </div>
      ) : null}
      {message ? (
        <p class="notice" role="status">
          {message}
        </p>
      ) : null}
      <ErrorLine error={error ?? subs.error} />
      {asking ? (
        <Confirmation
          asking={asking}
          act={act}
          onSecret={(id, value) => setSecret({ id, secret: value })}
          onCancel={() => setAsking(undefined)}
        />
      ) : null}
      <table>
        <thead>
          <tr>
            <th>URL</th>
            <th>Types</th>
            <th>State</th>
            <th>Health</th>
            <th>Created</th>
            <th>Actions</th>
          </tr>
        </thead>
        <tbody>
          {(subs.data ?? []).map((s) => (
            <SubscriptionRow
              key={s.id}
              sub={s}
              act={act}
              ask={(kind) => {
                setMessage(undefined);
                setError(undefined);
                if (kind === 'disable' || kind === 'rotate') {
                  setAsking(kind === 'disable' ? { kind, sub: s } : { kind, sub: s });
                  return;
                }
                api('GET /subscriptions/{id}/backlog', { params: { id: s.id } }).then(
                  (backlog) => setAsking({ kind, sub: s, backlog }),
                  (e: unknown) => setError(describe(e)),
                );
              }}
            />
          ))}
        </tbody>
      </table>
    </Section>
  );
}

function CreateForm({ onCreated }: { onCreated: (s: SubscriptionCreated) => void }) {
  const [url, setUrl] = useState('');
  const [types, setTypes] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const known = useEventTypes();
  // The catalogue's types and the prefixes they share (`vehicle.alert.*`), for the picker.
  const catalogueTypes = [
    ...new Set([...known, ...known.map((t) => `${t.split('.').slice(0, -1).join('.')}.*`), '*']),
  ].sort();
  return (
    <form
      class="inline"
      aria-label="Create a subscription"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(undefined);
        try {
          const created = await api('POST /subscriptions', {
            body: {
              url,
              ...(types.trim() ? { eventTypes: list(types) } : {}),
              ...(description.trim() ? { description: description.trim() } : {}),
            } satisfies CreateSubscriptionBody,
          });
          setUrl('');
          setTypes('');
          setDescription('');
          onCreated(created);
        } catch (err) {
          setError(describe(err));
        }
      }}
    >
      <label>
        Endpoint URL
        <input name="url" type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
      </label>
      <label>
        Event types (comma-separated, empty = all)
        <input
          name="eventTypes"
          list="catalogue-types"
          value={types}
          placeholder="vehicle.alert.*, vehicle.collision.detected"
          onInput={(e) => setTypes(e.currentTarget.value)}
        />
        <datalist id="catalogue-types">
          {catalogueTypes.map((t) => (
            <option key={t} value={t} />
          ))}
        </datalist>
      </label>
      <label>
        Description (optional)
        <input
          name="description"
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
      </label>
      <button type="submit">Create subscription</button>
      <ErrorLine error={error} />
    </form>
  );
}

function SubscriptionRow(props: {
  sub: Subscription;
  act: (what: string, run: () => Promise<unknown>) => Promise<void>;
  ask: (kind: Asking['kind']) => void;
}) {
  const { sub: s, act } = props;
  const [editing, setEditing] = useState(false);
  const [url, setUrl] = useState(s.url);
  const [types, setTypes] = useState((s.eventTypes ?? []).join(', '));
  const [description, setDescription] = useState(s.description ?? '');
  const params = { id: s.id };
  return (
    <tr data-subscription={s.id}>
      <td data-label="URL">
        {editing ? (
          <>
            <input aria-label="URL" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
            <input
              aria-label="Description"
              value={description}
              placeholder="description"
              onInput={(e) => setDescription(e.currentTarget.value)}
            />
          </>
        ) : (
          <>
            <span title={s.id}>{s.url}</span>
            {s.description ? (
              <>
                <br />
                <small class="muted" data-testid="description">
                  {s.description}
                </small>
              </>
            ) : null}
          </>
        )}
      </td>
      <td data-label="Types">
        {editing ? (
          <input aria-label="Event types" value={types} onInput={(e) => setTypes(e.currentTarget.value)} />
        ) : (
          (s.eventTypes ?? ['all']).join(', ')
        )}
      </td>
      <td data-label="State">
        <Badge value={s.status} />
        {s.disabledReason ? <small> {s.disabledReason}</small> : null}
      </td>
      <td data-label="Health">
        <Health health={s.health} />
      </td>
      <td data-label="Created">
        <When iso={s.createdAt} />
      </td>
      <td data-label="Actions" class="actions">
        {editing ? (
          <>
            <button
              type="button"
              onClick={() =>
                act(`Saved ${s.id}`, async () => {
                  await api('PATCH /subscriptions/{id}', {
                    params,
                    body: {
                      url,
                      eventTypes: types.trim() ? list(types) : null,
                    } satisfies UpdateSubscriptionBody,
                  });
                  setEditing(false);
                })
              }
            >
              Save
            </button>
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </>
        ) : (
          <button type="button" onClick={() => setEditing(true)}>
            Edit
          </button>
        )}
        <button
          type="button"
          onClick={() =>
            act(`Test event sent to ${s.id}`, async () => {
              const r = await api('POST /subscriptions/{id}/test', { params });
              return testOutcome(s.id, r);
            })
          }
        >
          Send test
        </button>
        {s.status === 'active' ? (
          <button type="button" onClick={() => props.ask('disable')}>
            Disable
          </button>
        ) : (
          <button type="button" onClick={() => props.ask('enable')}>
            Enable
          </button>
        )}
        <button type="button" onClick={() => props.ask('rotate')}>
          Rotate secret
        </button>
        <a href={`#/deliveries/${encodeURIComponent(s.id)}`}>Deliveries</a>
      </td>
    </tr>
  );
}

type Asking =
  | { kind: 'enable'; sub: Subscription; backlog: Backlog }
  | { kind: 'disable'; sub: Subscription }
  | { kind: 'rotate'; sub: Subscription };

function Confirmation(props: {
  asking: Asking;
  act: (what: string, run: () => Promise<unknown>) => Promise<void>;
  onSecret: (id: string, secret: string) => void;
  onCancel: () => void;
}) {
  const { asking, act } = props;
  const s = asking.sub;
  const params = { id: s.id };
  if (asking.kind === 'disable') {
    return (
      <Confirm
        title={`Disable ${s.url}?`}
        onCancel={props.onCancel}
        choices={[
          {
            label: 'Disable',
            run: () => act(`Disabled ${s.id}`, () => api('POST /subscriptions/{id}/disable', { params })),
          },
        ]}
      >
        <p>
          Nothing is delivered to it until it is enabled. The events it misses stay in the event log and are
          delivered when it is enabled (or discarded, if you choose so then), as far back as the log keeps
          them.
        </p>
      </Confirm>
    );
  }
  if (asking.kind === 'rotate') {
    return (
      <Confirm
        title={`Rotate the signing secret of ${s.url}?`}
        onCancel={props.onCancel}
        choices={[
          {
            label: 'Rotate secret',
            run: () =>
              act(`Rotated the secret of ${s.id}; the previous one still signs for 24 h`, async () => {
                const r = await api('POST /subscriptions/{id}/rotate-secret', { params });
                props.onSecret(s.id, r.secret);
              }),
          },
        ]}
      >
        <p>
          A new secret is shown once. Deliveries are signed with both for 24 hours, then with the new one
          only.
        </p>
      </Confirm>
    );
  }
  const b = asking.backlog;
  const enable = (backlog: 'recover' | 'discard') =>
    act(`Enabled ${s.id}`, async () => {
      const r = await api('POST /subscriptions/{id}/enable', { params, body: { backlog } });
      const missed = r.backlog
        ? backlog === 'recover'
          ? `, ${r.backlog.recovered} missed event(s) queued for delivery`
          : `, ${r.backlog.discarded} missed event(s) discarded`
        : '';
      return `Enabled ${s.id}: ${r.resumed} parked delivery(ies) resumed${missed}`;
    });
  const count = `${b.events}${b.more ? '+' : ''}`;
  return (
    <Confirm
      title={`Enable ${s.url}?`}
      onCancel={props.onCancel}
      choices={
        b.window && b.events > 0
          ? [
              { label: `Enable and deliver ${count} missed event(s)`, run: () => enable('recover') },
              { label: 'Enable and discard them', run: () => enable('discard') },
            ]
          : [{ label: 'Enable', run: () => enable('recover') }]
      }
    >
      {b.window ? (
        <p data-testid="backlog">
          Disabled since <When iso={b.window.disabledAt} />: {count} event(s) matching its filters were
          detected since then{b.more ? ` (the first ${b.limit} are delivered now; replay the rest)` : ''}.
          They are queued in detection order, with their own ids.
        </p>
      ) : null}
      {b.window?.truncated ? (
        <p class="error">
          The event log keeps {b.window.retentionDays} days: events detected before{' '}
          <When iso={b.window.keptSince} /> are gone and cannot be delivered.
        </p>
      ) : null}
      <p>{b.parked} parked delivery(ies) resume.</p>
    </Confirm>
  );
}
