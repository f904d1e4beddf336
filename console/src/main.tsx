/**
 * The Carhook console: a single page served by the management API at `/`, talking to the same
 * origin's JSON routes. Pages are chosen by the URL hash, so links and the back button work and no
 * server route is needed per page.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, session } from './api';
import { DeliveriesPage } from './pages/deliveries';
import { EnrollmentsPage } from './pages/enrollments';
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
  ['#/quota', 'Quota & lag'],
  ['#/reference', 'API'],
] as const;

function App() {
  const [signedIn, setSignedIn] = useState(session.token() !== null);
  const hash = useHash();
  if (!signedIn) return <SignIn onSignedIn={() => setSignedIn(true)} />;
  const [path = '', query = ''] = hash.replace(/^#/, '').split('?');
  const parts = path.split('/').filter((p) => p.length > 0);
  let page = <EnrollmentsPage />;
  if (parts[0] === 'subscriptions') page = <SubscriptionsPage />;
  else if (parts[0] === 'events') page = <EventsPage />;
  else if (parts[0] === 'quota') page = <QuotaPage />;
  else if (parts[0] === 'reference') page = <ReferencePage />;
  else if (parts[0] === 'vehicles' && parts[1])
    page = <VehiclePage vehicleId={decodeURIComponent(parts[1])} />;
  else if (parts[0] === 'deliveries' && parts[1])
    page = <DeliveriesPage subscriptionId={decodeURIComponent(parts[1])} />;
  else {
    const enrolled = new URLSearchParams(query).get('enrolled') ?? undefined;
    page = <EnrollmentsPage {...(enrolled ? { highlight: enrolled } : {})} />;
  }
  const current = `#/${parts[0] ?? 'enrollments'}`;
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
