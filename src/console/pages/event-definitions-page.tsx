import { useState } from 'react';
import { Link } from 'wouter';
import { projectApi, queryString, type Page } from '../api';
import { useApi } from '../hooks';
import { useSession } from '../session';

interface EventDefinition {
  id: string;
  name: string;
  volume_30_day: number | null;
  last_seen_at: string | null;
  created_at: string | null;
}

/** Every event name the project has seen, searchable, with a link to its live events. */
export function EventDefinitionsPage() {
  const { project } = useSession();
  const [search, setSearch] = useState('');
  const definitions = useApi<Page<EventDefinition>>(projectApi(project.id, `event_definitions/${queryString({ search: search.trim(), limit: 200 })}`));
  return (
    <>
      <h1>Event definitions</h1>
      <div className="toolbar">
        <input placeholder="Search event names" value={search} onChange={(e) => setSearch(e.target.value)} aria-label="Search event definitions" />
        <span className="spacer" />
        {definitions.data?.count !== undefined && <span className="muted">{definitions.data.count} events</span>}
      </div>
      {definitions.error && <p className="error">{definitions.error}</p>}
      <table data-testid="definitions-table">
        <thead>
          <tr>
            <th>Event</th>
            <th>First seen</th>
            <th>Last seen</th>
          </tr>
        </thead>
        <tbody>
          {(definitions.data?.results ?? []).map((definition) => (
            <tr key={definition.id}>
              <td>
                <Link href={`/events?event=${encodeURIComponent(definition.name)}`}>{definition.name}</Link>
              </td>
              <td>{definition.created_at ? new Date(definition.created_at).toLocaleDateString() : '—'}</td>
              <td>{definition.last_seen_at ? new Date(definition.last_seen_at).toLocaleString() : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
