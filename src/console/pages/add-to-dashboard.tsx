import { useState } from 'react';
import { Link } from 'wouter';
import { api, errorText, projectApi, type Page } from '../api';
import { useApi } from '../hooks';
import { useSession } from '../session';
import type { DashboardRow } from './dashboards-page';
import type { SavedInsight } from './insights-page';

const NEW_DASHBOARD = 'new';

/** Puts a saved insight on a dashboard, or on a new one named here. */
export function AddToDashboard({ insight, onAdded }: { insight: SavedInsight; onAdded: () => void }) {
  const { project } = useSession();
  const dashboards = useApi<Page<DashboardRow>>(projectApi(project.id, 'dashboards/?limit=200'));
  const [choice, setChoice] = useState('');
  const [newName, setNewName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const on = (dashboards.data?.results ?? []).filter((dashboard) => insight.dashboards.includes(dashboard.id));

  async function add() {
    try {
      const id = choice === NEW_DASHBOARD ? (await api.post<DashboardRow>(projectApi(project.id, 'dashboards/'), { name: newName || 'New dashboard' })).id : Number(choice);
      await api.patch(projectApi(project.id, `insights/${insight.id}/`), { dashboards: [...insight.dashboards, id] });
      setChoice('');
      setNewName('');
      setError(null);
      dashboards.reload();
      onAdded();
    } catch (failure) {
      setError(errorText(failure));
    }
  }

  return (
    <span className="row" style={{ margin: 0 }}>
      {on.map((dashboard) => (
        <Link key={dashboard.id} href={`/dashboards/${dashboard.id}`} className="chip">
          {dashboard.name}
        </Link>
      ))}
      <select value={choice} onChange={(e) => setChoice(e.target.value)} aria-label="Add to dashboard">
        <option value="">Add to dashboard…</option>
        {(dashboards.data?.results ?? [])
          .filter((dashboard) => !insight.dashboards.includes(dashboard.id))
          .map((dashboard) => (
            <option key={dashboard.id} value={dashboard.id}>
              {dashboard.name}
            </option>
          ))}
        <option value={NEW_DASHBOARD}>New dashboard…</option>
      </select>
      {choice === NEW_DASHBOARD && <input value={newName} onChange={(e) => setNewName(e.target.value)} placeholder="Dashboard name" aria-label="New dashboard name" />}
      {choice && <button onClick={() => void add()}>Add</button>}
      {error && <span className="error">{error}</span>}
    </span>
  );
}
