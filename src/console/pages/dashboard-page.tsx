import { useEffect, useState } from 'react';
import { Link } from 'wouter';
import { api, errorText, projectApi } from '../api';
import { completeFilters, PropertyFiltersEditor, type PropertyFilter } from '../components/property-filters';
import { InsightResult } from '../insights/insight-result';
import { DATE_RANGES, fromQuery } from '../insights/insight-query';
import { useSession } from '../session';
import type { SavedInsight } from './insights-page';

interface Tile {
  id: number;
  insight: (SavedInsight & { query_status?: { error_message?: string } | null }) | null;
  text: { body: string } | null;
}

interface Dashboard {
  id: number;
  name: string;
  description: string;
  filters: { date_from?: string | null; properties?: PropertyFilter[] | null };
  tiles: Tile[];
}

type Refresh = 'blocking' | 'force_blocking';

/** A dashboard's tiles, each computed with the dashboard's filters laid over its own query. */
export function DashboardPage({ id }: { id: number }) {
  const { project } = useSession();
  const [dashboard, setDashboard] = useState<Dashboard | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [properties, setProperties] = useState<PropertyFilter[]>([]);
  const path = projectApi(project.id, `dashboards/${id}/`);

  async function load(refresh: Refresh) {
    setLoading(true);
    try {
      const loaded = await api.get<Dashboard>(`${path}?refresh=${refresh}`);
      setDashboard(loaded);
      setProperties(loaded.filters.properties ?? []);
      setError(null);
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setLoading(false);
    }
  }
  useEffect(() => {
    void load('blocking');
  }, [path]);

  async function saveFilters(filters: Dashboard['filters']) {
    try {
      await api.patch(path, { filters: { ...dashboard!.filters, ...filters } });
      await load('blocking');
    } catch (failure) {
      setError(errorText(failure));
    }
  }

  if (!dashboard) return error ? <p className="error">{error}</p> : <p>Loading…</p>;
  return (
    <>
      <div className="toolbar">
        <h1 style={{ margin: 0 }}>{dashboard.name}</h1>
        <span className="spacer" />
        <span className="muted" aria-live="polite">
          {loading ? 'Computing…' : ''}
        </span>
        <button onClick={() => void load('force_blocking')}>Refresh</button>
      </div>
      {dashboard.description && <p className="muted">{dashboard.description}</p>}
      <section className="panel" data-testid="dashboard-filters">
        <div className="row">
          <span className="muted">Date range for every tile</span>
          <select value={dashboard.filters.date_from ?? ''} onChange={(e) => void saveFilters({ date_from: e.target.value || null })} aria-label="Dashboard date range">
            <option value="">Each tile's own</option>
            {DATE_RANGES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <PropertyFiltersEditor types={['event', 'person']} filters={properties} onChange={setProperties} />
        <button onClick={() => void saveFilters({ properties: completeFilters(properties) })}>Apply filters</button>
      </section>
      {error && <p className="error">{error}</p>}
      {dashboard.tiles.length === 0 && (
        <p className="empty">
          No tiles yet: open an <Link href="/insights">insight</Link> and add it to this dashboard.
        </p>
      )}
      <div className="grid">
        {dashboard.tiles.map((tile) => (
          <TileView key={tile.id} tile={tile} />
        ))}
      </div>
    </>
  );
}

function TileView({ tile }: { tile: Tile }) {
  if (tile.text) return <div className="tile">{tile.text.body}</div>;
  const insight = tile.insight!;
  return (
    <div className="tile" data-testid="dashboard-tile">
      <h3>
        <Link href={`/insights/${insight.short_id}`}>{insight.name || insight.derived_name || 'Unnamed insight'}</Link>
      </h3>
      {insight.query_status?.error_message ? <p className="error">{insight.query_status.error_message}</p> : <InsightResult state={fromQuery(insight.query)} result={insight.result} />}
    </div>
  );
}
