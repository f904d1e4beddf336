import { useState } from 'preact/hooks';
import { api, itemsOf, type Json } from '../api';
import { Badge, describe, ErrorLine, Section, useLoad, When } from '../ui';

export interface Subscription extends Json {
  id: string;
  url: string;
  eventTypes?: string[];
  description?: string;
  status: string;
  disabledReason?: string;
  health?: { consecutiveFailures?: number; lastSuccessAt?: string; lastFailureAt?: string };
  createdAt: string;
}

const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

/** Subscriptions: create, edit, enable/disable, rotate the secret, send a test event. */
export function SubscriptionsPage() {
  const subs = useLoad(
    async () => itemsOf<Subscription>(await api('/subscriptions?limit=100'), 'items'),
    [],
    5000,
  );
  const [secret, setSecret] = useState<{ id: string; secret: string } | undefined>(undefined);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);

  const act = async (what: string, run: () => Promise<unknown>) => {
    setError(undefined);
    setMessage(undefined);
    try {
      await run();
      setMessage(what);
      subs.reload();
    } catch (e) {
      setError(describe(e));
    }
  };

  return (
    <Section title="Subscriptions">
      <CreateForm
        onCreated={(created) => {
          setSecret({ id: created.id, secret: String(created.secret) });
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
      <table>
        <thead>
          <tr>
            <th>URL</th>
            <th>Types</th>
            <th>State</th>
            <th>Failures</th>
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
              onSecret={(value) => setSecret({ id: s.id, secret: value })}
            />
          ))}
        </tbody>
      </table>
    </Section>
  );
}

function CreateForm({ onCreated }: { onCreated: (s: Json & { id: string }) => void }) {
  const [url, setUrl] = useState('');
  const [types, setTypes] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  return (
    <form
      class="inline"
      aria-label="Create a subscription"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(undefined);
        try {
          const created = await api<Json & { id: string }>('/subscriptions', {
            method: 'POST',
            body: { url, ...(types.trim() ? { eventTypes: list(types) } : {}) },
          });
          setUrl('');
          setTypes('');
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
          value={types}
          placeholder="vehicle.alert.*, vehicle.collision.detected"
          onInput={(e) => setTypes(e.currentTarget.value)}
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
  onSecret: (secret: string) => void;
}) {
  const { sub: s, act } = props;
  const [editing, setEditing] = useState(false);
  const [url, setUrl] = useState(s.url);
  const [types, setTypes] = useState((s.eventTypes ?? []).join(', '));
  const path = `/subscriptions/${encodeURIComponent(s.id)}`;
  return (
    <tr data-subscription={s.id}>
      <td>
        {editing ? (
          <input aria-label="URL" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        ) : (
          <span title={s.id}>{s.url}</span>
        )}
      </td>
      <td>
        {editing ? (
          <input aria-label="Event types" value={types} onInput={(e) => setTypes(e.currentTarget.value)} />
        ) : (
          (s.eventTypes ?? ['all']).join(', ')
        )}
      </td>
      <td>
        <Badge value={s.status} />
        {s.disabledReason ? <small> {s.disabledReason}</small> : null}
      </td>
      <td>{s.health?.consecutiveFailures ?? 0}</td>
      <td>
        <When iso={s.createdAt} />
      </td>
      <td class="actions">
        {editing ? (
          <>
            <button
              type="button"
              onClick={() =>
                act(`Saved ${s.id}`, async () => {
                  await api(path, {
                    method: 'PATCH',
                    body: { url, eventTypes: types.trim() ? list(types) : null },
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
          onClick={() => act(`Test event sent to ${s.id}`, () => api(`${path}/test`, { method: 'POST' }))}
        >
          Send test
        </button>
        {s.status === 'active' ? (
          <button
            type="button"
            onClick={() => act(`Disabled ${s.id}`, () => api(`${path}/disable`, { method: 'POST' }))}
          >
            Disable
          </button>
        ) : (
          <button
            type="button"
            onClick={() => act(`Enabled ${s.id}`, () => api(`${path}/enable`, { method: 'POST' }))}
          >
            Enable
          </button>
        )}
        <button
          type="button"
          onClick={() =>
            act(`Rotated the secret of ${s.id}; the previous one still signs for 24 h`, async () => {
              const r = await api<{ secret?: string }>(`${path}/rotate-secret`, { method: 'POST' });
              if (r.secret) props.onSecret(r.secret);
            })
          }
        >
          Rotate secret
        </button>
        <a href={`#/deliveries/${encodeURIComponent(s.id)}`}>Deliveries</a>
      </td>
    </tr>
  );
}
