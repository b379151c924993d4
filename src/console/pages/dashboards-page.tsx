import { useState } from 'react';
import { useLocation } from 'wouter';
import { api, errorText, projectApi, queryString, type Page } from '../api';
import { useApi } from '../hooks';
import { useSession } from '../session';

export interface DashboardRow {
  id: number;
  name: string;
  description: string;
  pinned: boolean;
  created_at: string;
}

/** Dashboards, pinned first as the API orders them, with a search and a way to start one. */
export function DashboardsPage() {
  const { project } = useSession();
  const [search, setSearch] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [, navigate] = useLocation();
  const dashboards = useApi<Page<DashboardRow>>(projectApi(project.id, `dashboards/${queryString({ search: search.trim(), limit: 200 })}`));
  async function create() {
    try {
      const created = await api.post<DashboardRow>(projectApi(project.id, 'dashboards/'), { name: name.trim() || 'New dashboard' });
      navigate(`/dashboards/${created.id}`);
    } catch (failure) {
      setError(errorText(failure));
    }
  }
  return (
    <>
      <h1>Dashboards</h1>
      <div className="toolbar">
        <input placeholder="Search dashboards" value={search} onChange={(e) => setSearch(e.target.value)} aria-label="Search dashboards" />
        <span className="spacer" />
        <input placeholder="New dashboard name" value={name} onChange={(e) => setName(e.target.value)} aria-label="New dashboard name" />
        <button className="primary" onClick={() => void create()}>
          New dashboard
        </button>
      </div>
      {(error ?? dashboards.error) && <p className="error">{error ?? dashboards.error}</p>}
      <table data-testid="dashboards-table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Description</th>
            <th>Created</th>
          </tr>
        </thead>
        <tbody>
          {(dashboards.data?.results ?? []).map((dashboard) => (
            <tr key={dashboard.id} className="clickable" onClick={() => navigate(`/dashboards/${dashboard.id}`)}>
              <td>
                {dashboard.pinned && <span title="Pinned">📌 </span>}
                {dashboard.name}
              </td>
              <td className="muted">{dashboard.description}</td>
              <td>{new Date(dashboard.created_at).toLocaleDateString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {dashboards.data?.results.length === 0 && <p className="empty">No dashboards yet: create one here, or add a saved insight to a new one from its page.</p>}
    </>
  );
}
