import { useState } from 'react';
import { useLocation } from 'wouter';
import { projectApi, queryString, type Page } from '../api';
import { useApi } from '../hooks';
import { useSession } from '../session';

export interface PersonRow {
  id: number;
  uuid: string;
  name: string;
  distinct_ids: string[];
  properties: Record<string, unknown>;
  created_at: string;
}

/** Persons, searched by e-mail, name or distinct id as the persons list searches. */
export function PersonsPage() {
  const { project } = useSession();
  const [search, setSearch] = useState('');
  const [, navigate] = useLocation();
  const persons = useApi<Page<PersonRow>>(projectApi(project.id, `persons/${queryString({ search: search.trim(), limit: 100 })}`));
  return (
    <>
      <h1>Persons</h1>
      <div className="toolbar">
        <input placeholder="Search by e-mail, name or distinct id" value={search} onChange={(e) => setSearch(e.target.value)} aria-label="Search persons" style={{ minWidth: 320 }} />
      </div>
      {persons.error && <p className="error">{persons.error}</p>}
      <table data-testid="persons-table">
        <thead>
          <tr>
            <th>Person</th>
            <th>Distinct ids</th>
            <th>First seen</th>
          </tr>
        </thead>
        <tbody>
          {(persons.data?.results ?? []).map((person) => (
            <tr key={person.uuid} className="clickable" onClick={() => navigate(`/persons/${encodeURIComponent(person.distinct_ids[0] ?? person.uuid)}`)}>
              <td>{person.name}</td>
              <td className="muted">{person.distinct_ids.join(', ')}</td>
              <td>{new Date(person.created_at).toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {persons.data?.results.length === 0 && <p className="empty">No person matches.</p>}
    </>
  );
}
