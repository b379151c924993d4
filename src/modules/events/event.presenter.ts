import type { EventDto, EventPersonDto } from './dto/event.dto';
import { parseElementsChain } from './elements';

/** A stored event as the repository reads it; `timestamp` is UTC text with microseconds. */
export interface EventRow {
  uuid: string;
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  elements_chain: string;
  timestamp: string;
}

export interface PersonSummary {
  isIdentified: boolean;
  firstDistinctId: string;
  properties: Record<string, unknown>;
}

const SUMMARY_KEYS = ['email', 'name', 'username'];

/** `2026-01-01T00:00:00.123456` → PostHog's `2026-01-01T00:00:00.123456+00:00` (no `.000000`). */
export function eventTimestamp(utcText: string): string {
  return `${utcText.replace(/\.0{6}$/, '')}+00:00`;
}

function personSummary(person: PersonSummary | undefined): EventPersonDto | null {
  if (!person) return null;
  const properties: Record<string, unknown> = {};
  for (const key of SUMMARY_KEYS) if (key in person.properties) properties[key] = person.properties[key];
  return { is_identified: person.isIdentified, distinct_ids: [person.firstDistinctId], properties };
}

export function eventJson(row: EventRow, person: PersonSummary | undefined): EventDto {
  return {
    id: row.uuid,
    distinct_id: row.distinct_id,
    properties: row.properties,
    event: row.event,
    timestamp: eventTimestamp(row.timestamp),
    person: personSummary(person),
    elements: parseElementsChain(row.elements_chain),
    elements_chain: row.elements_chain,
  };
}
