import type { PersonDto } from './dto/person.dto';

/** A person as the management API reads it: the row, its distinct ids in the order they were added. */
export interface PersonView {
  id: number;
  uuid: string;
  properties: Record<string, unknown>;
  isIdentified: boolean;
  createdAt: Date;
  distinctIds: string[];
}

/** PostHog's `ANONYMOUS_REGEX`: uuid-like ids that SDKs generate before identify. */
const ANONYMOUS = /^([a-z0-9]+-){4}([a-z0-9]+)$/;

/** Non-anonymous ids first (PostHog's serializer), each group in the order the ids were added. */
export function orderedDistinctIds(ids: string[]): string[] {
  return [...ids.filter((id) => !ANONYMOUS.test(id)), ...ids.filter((id) => ANONYMOUS.test(id))];
}

function nonEmptyText(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() === '' ? null : value;
  return typeof value === 'number' ? String(value) : null;
}

/** A person's name: the email property, else the name property, else the first distinct id (else the id). */
export function personName(person: Pick<PersonView, 'id' | 'properties'>, distinctIds: string[]): string {
  return nonEmptyText(person.properties.email) ?? nonEmptyText(person.properties.name) ?? distinctIds[0] ?? String(person.id);
}

/** DRF's datetime rendering: ISO 8601 with microseconds and `Z`. */
export function drfTimestamp(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export function personJson(person: PersonView): PersonDto {
  const distinctIds = orderedDistinctIds(person.distinctIds);
  return {
    id: person.id,
    uuid: person.uuid,
    name: personName(person, distinctIds),
    distinct_ids: distinctIds,
    properties: person.properties,
    created_at: drfTimestamp(person.createdAt),
    is_identified: person.isIdentified,
  };
}
