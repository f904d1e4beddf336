/**
 * The Carhook console: a single page served by the management API at `/`, talking to the same
 * origin's JSON routes. Pages are chosen by the URL hash, so links and the back button work and no
 * server route is needed per page.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, session } from './api';
import { CataloguePage } from './pages/catalogue';
import { DeliveriesPage } from './pages/deliveries';
import { EnrollmentsPage } from './pages/enrollments';
import { EventPage } from './pages/event';
import { EventsPage } from './pages/events';
import { QuotaPage } from './pages/quota';
import { ReferencePage } from './pages/reference';
import { SubscriptionsPage } from './pages/subscriptions';
import { VehiclePage } from './pages/vehicle';
import { describe, ErrorLine } from './ui';

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  return (
    <main class="signin">
      <h1>Carhook</h1>
      <form
        aria-label="Sign in"
        onSubmit={async (e) => {
          e.preventDefault();
          session.signIn(token.trim());
          try {
            await api('/subscriptions?limit=1');
            onSignedIn();
          } catch (err) {
            session.signOut();
            setError(describe(err));
          }
        }}
      >
        <label>
          Admin token
          <input
            name="token"
            type="password"
            autoComplete="current-password"
            required
            value={token}
            onInput={(e) => setToken(e.currentTarget.value)}
          />
        </label>
        <button type="submit">Sign in</button>
        <ErrorLine error={error} />
        <p class="muted">
          The token printed by <code>carhook dev</code> (or <code>CARHOOK_ADMIN_TOKEN</code>); it is kept in
          this tab only.
        </p>
      </form>
    </main>
  );
}

const NAV = [
  ['#/enrollments', 'Vehicles'],
  ['#/subscriptions', 'Subscriptions'],
  ['#/events', 'Events'],
  ['#/catalogue', 'Catalogue'],
  ['#/quota', 'Quota & lag'],
  ['#/reference', 'API'],
] as const;

/** The page of a hash route (`#/vehicles/<id>`, `#/deliveries/<id>?eventId=…`); an unknown one says so. */
function pageFor(parts: readonly string[], params: URLSearchParams) {
  const [first, second] = parts;
  const id = second === undefined ? undefined : decodeURIComponent(second);
  if (first === undefined || (first === 'enrollments' && id === undefined)) {
    const enrolled = params.get('enrolled') ?? undefined;
    return <EnrollmentsPage {...(enrolled ? { highlight: enrolled } : {})} />;
  }
  if (first === 'vehicles' && id !== undefined) return <VehiclePage vehicleId={id} />;
  if (first === 'subscriptions' && id === undefined) return <SubscriptionsPage />;
  if (first === 'deliveries' && id !== undefined) {
    const initial = Object.fromEntries(
      ['status', 'eventType', 'eventId', 'since', 'until'].flatMap((k) => {
        const v = params.get(k);
        return v === null ? [] : [[k, v]];
      }),
    );
    return <DeliveriesPage subscriptionId={id} initial={initial} />;
  }
  if (first === 'events' && id === undefined) return <EventsPage />;
  if (first === 'events' && id !== undefined) return <EventPage eventId={id} />;
  if (first === 'catalogue' && id === undefined) {
    const type = params.get('type') ?? undefined;
    return <CataloguePage {...(type ? { focus: type } : {})} />;
  }
  if (first === 'quota' && id === undefined) return <QuotaPage />;
  if (first === 'reference' && id === undefined) return <ReferencePage />;
  return <NotFound path={`#/${parts.join('/')}`} />;
}

function NotFound({ path }: { path: string }) {
  return (
    <section>
      <h2>Not found</h2>
      <p role="alert">
        The console has no page <code>{path}</code>. <a href="#/enrollments">Vehicles</a> ·{' '}
        <a href="#/subscriptions">Subscriptions</a> · <a href="#/events">Events</a>
      </p>
    </section>
  );
}

function App() {
  const [signedIn, setSignedIn] = useState(session.token() !== null);
  const hash = useHash();
  if (!signedIn) return <SignIn onSignedIn={() => setSignedIn(true)} />;
  const [path = '', query = ''] = hash.replace(/^#/, '').split('?');
  const parts = path.split('/').filter((p) => p.length > 0);
  const params = new URLSearchParams(query);
  const page = pageFor(parts, params);
  const current = `#/${parts[0] === 'vehicles' ? 'enrollments' : parts[0] === 'deliveries' ? 'subscriptions' : (parts[0] ?? 'enrollments')}`;
  return (
    <>
      <header>
        <strong>Carhook</strong>
        <nav aria-label="Pages">
          {NAV.map(([href, label]) => (
            <a key={href} href={href} aria-current={current === href ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <button
          type="button"
          onClick={() => {
            session.signOut();
            setSignedIn(false);
          }}
        >
          Sign out
        </button>
      </header>
      <main>{page}</main>
    </>
  );
}

const root = document.getElementById('app');
if (root) render(<App />, root);
