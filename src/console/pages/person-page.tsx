import { projectApi, queryString, type Page } from '../api';
import { EventsTable, type EventRow } from '../components/events-table';
import { PropertiesTable } from '../components/properties-table';
import { useApi } from '../hooks';
import { useSession } from '../session';
import type { PersonRow } from './persons-page';

/** One person, found by any of their distinct ids (the address PostHog's console uses): properties and events. */
export function PersonPage({ id }: { id: string }) {
  const { project } = useSession();
  const distinctId = decodeURIComponent(id);
  const persons = useApi<Page<PersonRow>>(projectApi(project.id, `persons/${queryString({ distinct_id: distinctId })}`));
  const person = persons.data?.results[0];
  const events = useApi<Page<EventRow>>(person ? projectApi(project.id, `events/${queryString({ person_id: person.uuid, limit: 100 })}`) : null);
  if (persons.error) return <p className="error">{persons.error}</p>;
  if (!persons.data) return <p>Loading…</p>;
  if (!person) return <p className="empty">No person has the distinct id “{distinctId}”.</p>;
  return (
    <>
      <h1 data-testid="person-name">{person.name}</h1>
      <p className="muted">
        Distinct ids: {person.distinct_ids.join(', ')} · first seen {new Date(person.created_at).toLocaleString()}
      </p>
      <section className="panel">
        <h2>Properties</h2>
        <PropertiesTable properties={person.properties} />
      </section>
      <section>
        <h2>Events</h2>
        {events.error && <p className="error">{events.error}</p>}
        <EventsTable events={events.data?.results ?? []} />
      </section>
    </>
  );
}
