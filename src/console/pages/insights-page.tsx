import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { api, projectApi, queryString, type Page } from '../api';
import { useApi } from '../hooks';
import { KINDS } from '../insights/insight-query';
import { useSession } from '../session';

export interface SavedInsight {
  id: number;
  short_id: string;
  name: string | null;
  derived_name: string | null;
  favorited: boolean;
  query: { kind: string; source?: { kind: string } } | null;
  result?: unknown;
  last_modified_at: string;
  dashboards: number[];
}

/** Saved insights, searchable, favourites first when asked. */
export function InsightsPage() {
  const { project } = useSession();
  const [search, setSearch] = useState('');
  const [favorited, setFavorited] = useState(false);
  const [, navigate] = useLocation();
  const insights = useApi<Page<SavedInsight>>(projectApi(project.id, `insights/${queryString({ saved: true, basic: true, search: search.trim(), favorited: favorited || undefined, limit: 100 })}`));
  async function toggleFavorite(insight: SavedInsight) {
    await api.patch(projectApi(project.id, `insights/${insight.id}/`), { favorited: !insight.favorited });
    insights.reload();
  }
  return (
    <>
      <div className="toolbar">
        <h1 style={{ margin: 0 }}>Insights</h1>
        <span className="spacer" />
        <Link href="/insights/new">
          <button className="primary">New insight</button>
        </Link>
      </div>
      <div className="toolbar">
        <input placeholder="Search insights" value={search} onChange={(e) => setSearch(e.target.value)} aria-label="Search insights" />
        <label>
          <input type="checkbox" checked={favorited} onChange={(e) => setFavorited(e.target.checked)} /> Favourites only
        </label>
      </div>
      {insights.error && <p className="error">{insights.error}</p>}
      <table data-testid="insights-table">
        <thead>
          <tr>
            <th />
            <th>Name</th>
            <th>Type</th>
            <th>Last modified</th>
          </tr>
        </thead>
        <tbody>
          {(insights.data?.results ?? []).map((insight) => (
            <tr key={insight.id} className="clickable" onClick={() => navigate(`/insights/${insight.short_id}`)}>
              <td>
                <button
                  className="link"
                  aria-label={insight.favorited ? 'Remove from favourites' : 'Add to favourites'}
                  onClick={(event) => {
                    event.stopPropagation();
                    void toggleFavorite(insight);
                  }}
                >
                  {insight.favorited ? '★' : '☆'}
                </button>
              </td>
              <td>{insight.name || insight.derived_name || 'Unnamed insight'}</td>
              <td>{kindLabel(insight)}</td>
              <td>{new Date(insight.last_modified_at).toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {insights.data?.results.length === 0 && <p className="empty">No saved insights yet: build one and save it.</p>}
    </>
  );
}

function kindLabel(insight: SavedInsight): string {
  const kind = insight.query?.source?.kind ?? insight.query?.kind;
  return KINDS.find(([k]) => k === kind)?.[1] ?? kind ?? '';
}
