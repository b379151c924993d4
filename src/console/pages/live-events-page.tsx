import { useState } from 'react';
import { useSearch } from 'wouter';
import { projectApi, queryString, type Page } from '../api';
import { EventsTable, type EventRow } from '../components/events-table';
import { snippets } from '../components/snippets';
import { useApi, useInterval } from '../hooks';
import { useSession } from '../session';

const REFRESH_MS = 3000;

/** The newest events, fetched again every few seconds, filtered by event name and distinct id. */
export function LiveEventsPage() {
  const { project } = useSession();
  const search = useSearch();
  const [event, setEvent] = useState(() => new URLSearchParams(search).get('event') ?? '');
  const [person, setPerson] = useState('');
  const [live, setLive] = useState(true);
  const path = projectApi(project.id, `events/${queryString({ limit: 100, event: event.trim(), distinct_id: person.trim() })}`);
  const events = useApi<Page<EventRow>>(path);
  useInterval(events.reload, REFRESH_MS, live);
  const rows = events.data?.results ?? [];
  return (
    <>
      <h1>Live events</h1>
      <div className="toolbar">
        <input placeholder="Event name, e.g. $pageview" value={event} onChange={(e) => setEvent(e.target.value)} aria-label="Filter by event" />
        <input placeholder="Distinct id" value={person} onChange={(e) => setPerson(e.target.value)} aria-label="Filter by person" />
        <label>
          <input type="checkbox" checked={live} onChange={(e) => setLive(e.target.checked)} /> Update every {REFRESH_MS / 1000} s
        </label>
        <span className="spacer" />
        <span className="muted">{events.loading ? 'Loading…' : `${rows.length} shown`}</span>
      </div>
      {events.error && <p className="error">{events.error}</p>}
      {events.data && rows.length === 0 && !event && !person ? <FirstEvent token={project.api_token} /> : <EventsTable events={rows} />}
    </>
  );
}

function FirstEvent({ token }: { token: string }) {
  const curl = snippets(token, window.location.origin).find((snippet) => snippet.title === 'curl')!;
  return (
    <div className="panel empty" data-testid="no-events">
      <p>No events yet. Send one, and it shows up here within a few seconds:</p>
      <pre style={{ textAlign: 'left' }}>{curl.code}</pre>
    </div>
  );
}
