import { StrictMode, useCallback, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Link, Route, Switch, useLocation } from 'wouter';
import { api, ApiFailure, whenSignedOut } from './api';
import { CurrentUser, SessionContext } from './session';
import { SignInPage } from './pages/sign-in-page';
import { HomePage } from './pages/home-page';
import { LiveEventsPage } from './pages/live-events-page';
import { InsightsPage } from './pages/insights-page';
import { InsightEditorPage } from './pages/insight-editor-page';
import { DashboardsPage } from './pages/dashboards-page';
import { DashboardPage } from './pages/dashboard-page';
import { PersonsPage } from './pages/persons-page';
import { PersonPage } from './pages/person-page';
import { FeatureFlagsPage } from './pages/feature-flags-page';
import { FeatureFlagPage } from './pages/feature-flag-page';
import { EventDefinitionsPage } from './pages/event-definitions-page';
import './styles.css';

const NAV: Array<[string, string]> = [
  ['/', 'Home'],
  ['/events', 'Live events'],
  ['/insights', 'Insights'],
  ['/dashboards', 'Dashboards'],
  ['/persons', 'Persons'],
  ['/feature_flags', 'Feature flags'],
  ['/data-management/events', 'Event definitions'],
];

type Boot = { state: 'loading' } | { state: 'signed-out' } | { state: 'failed'; detail: string } | { state: 'ready'; user: CurrentUser };

function App() {
  const [boot, setBoot] = useState<Boot>({ state: 'loading' });
  const load = useCallback(() => {
    api.get<CurrentUser>('/api/users/@me/').then(
      (user) => setBoot({ state: 'ready', user }),
      (error: ApiFailure) => setBoot(error.status === 401 ? { state: 'signed-out' } : { state: 'failed', detail: error.message }),
    );
  }, []);
  useEffect(() => {
    whenSignedOut(() => setBoot({ state: 'signed-out' }));
    load();
  }, [load]);
  const signOut = useCallback(async () => {
    await api.post('/api/logout/');
    setBoot({ state: 'signed-out' });
  }, []);

  if (boot.state === 'loading') return <p className="boot">Loading…</p>;
  if (boot.state === 'signed-out') return <SignInPage onSignedIn={load} />;
  if (boot.state === 'failed') return <p className="boot error">{boot.detail}</p>;
  const project = boot.user.team;
  if (!project) return <p className="boot error">Your user has no project yet: create one with `npm run cli -- projects create`.</p>;
  return (
    <SessionContext.Provider value={{ user: boot.user, project, signOut }}>
      <Shell />
    </SessionContext.Provider>
  );
}

function Shell() {
  const [location] = useLocation();
  return (
    <div className="shell">
      <nav className="sidebar">
        <div className="brand">hogbase</div>
        {NAV.map(([path, label]) => (
          <Link key={path} href={path} className={isCurrent(location, path) ? 'active' : ''}>
            {label}
          </Link>
        ))}
        <SignOutButton />
      </nav>
      <main className="content">
        <Switch>
          <Route path="/" component={HomePage} />
          <Route path="/events" component={LiveEventsPage} />
          <Route path="/insights" component={InsightsPage} />
          <Route path="/insights/new">{() => <InsightEditorPage shortId={null} />}</Route>
          <Route path="/insights/:shortId">{(params) => <InsightEditorPage shortId={params.shortId} />}</Route>
          <Route path="/dashboards" component={DashboardsPage} />
          <Route path="/dashboards/:id">{(params) => <DashboardPage id={Number(params.id)} />}</Route>
          <Route path="/persons" component={PersonsPage} />
          <Route path="/persons/:id">{(params) => <PersonPage id={params.id} />}</Route>
          <Route path="/feature_flags" component={FeatureFlagsPage} />
          <Route path="/feature_flags/:id">{(params) => <FeatureFlagPage id={params.id} />}</Route>
          <Route path="/data-management/events" component={EventDefinitionsPage} />
          <Route>
            <h1>Page not found</h1>
            <p>
              Nothing lives at this address. The API is described at <a href="/api/docs/">/api/docs/</a>.
            </p>
          </Route>
        </Switch>
      </main>
    </div>
  );
}

function SignOutButton() {
  const [, navigate] = useLocation();
  return (
    <SessionContext.Consumer>
      {(session) => (
        <button
          className="link sign-out"
          onClick={() => {
            navigate('/');
            void session?.signOut();
          }}
        >
          Sign out {session?.user.email}
        </button>
      )}
    </SessionContext.Consumer>
  );
}

function isCurrent(location: string, path: string): boolean {
  return path === '/' ? location === '/' : location === path || location.startsWith(`${path}/`);
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
