import { Fragment, useState } from 'react';
import { Link } from 'wouter';
import { PropertiesTable } from './properties-table';

export interface EventRow {
  id: string;
  event: string;
  distinct_id: string;
  timestamp: string;
  properties: Record<string, unknown>;
  person: { distinct_ids: string[]; properties: Record<string, unknown> } | null;
}

/** Events newest first; a click opens the event's properties and a link to its person. */
export function EventsTable({ events }: { events: EventRow[] }) {
  const [open, setOpen] = useState<string | null>(null);
  return (
    <table data-testid="events-table">
      <thead>
        <tr>
          <th>Event</th>
          <th>Person</th>
          <th>URL / screen</th>
          <th>Time</th>
        </tr>
      </thead>
      <tbody>
        {events.map((event) => (
          <Fragment key={event.id}>
            <tr className="clickable event-row" onClick={() => setOpen(open === event.id ? null : event.id)}>
              <td>{event.event}</td>
              <td>{personLabel(event)}</td>
              <td className="muted">{String(event.properties.$current_url ?? event.properties.$screen_name ?? '')}</td>
              <td title={event.timestamp}>{new Date(event.timestamp).toLocaleString()}</td>
            </tr>
            {open === event.id && (
              <tr>
                <td colSpan={4}>
                  <div className="row">
                    <Link href={`/persons/${encodeURIComponent(event.distinct_id)}`}>Open person {personLabel(event)}</Link>
                    <span className="muted">event id {event.id}</span>
                  </div>
                  <PropertiesTable properties={event.properties} />
                </td>
              </tr>
            )}
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}

function personLabel(event: EventRow): string {
  const properties = event.person?.properties ?? {};
  return String(properties.email ?? properties.name ?? event.distinct_id);
}
