import { drfTimestamp, orderedDistinctIds, personName, PersonView } from '../../persons/person.presenter';
import type { GroupActor } from '../analytics.repository';

/** PostHog's SerializedPerson: `id` is the uuid; `value_at_data_point` only on trends persons. */
export interface SerializedPersonActor {
  type: 'person';
  id: string;
  uuid: string;
  created_at: string;
  properties: Record<string, unknown>;
  is_identified: boolean;
  name: string;
  distinct_ids: string[];
  matched_recordings: unknown[];
  value_at_data_point?: number | null;
}

export interface SerializedGroupActor {
  type: 'group';
  id: string;
  group_key: string;
  group_type_index: number;
  created_at: string;
  properties: Record<string, unknown>;
  matched_recordings: unknown[];
  value_at_data_point?: number | null;
}

export type SerializedActor = SerializedPersonActor | SerializedGroupActor;

/** At most this many distinct ids per person in actor lists, as in PostHog. */
const DISTINCT_ID_LIMIT = 1000;

export function serializedPerson(person: PersonView, value: number | null | undefined): SerializedPersonActor {
  const distinctIds = orderedDistinctIds(person.distinctIds).slice(0, DISTINCT_ID_LIMIT);
  const actor: SerializedPersonActor = {
    type: 'person',
    id: person.uuid,
    uuid: person.uuid,
    created_at: drfTimestamp(person.createdAt),
    properties: person.properties,
    is_identified: person.isIdentified,
    name: personName(person, distinctIds),
    distinct_ids: distinctIds,
    matched_recordings: [],
  };
  if (value !== undefined) actor.value_at_data_point = value;
  return actor;
}

export function serializedGroup(group: GroupActor, value: number | null | undefined): SerializedGroupActor {
  const actor: SerializedGroupActor = {
    type: 'group',
    id: group.groupKey,
    group_key: group.groupKey,
    group_type_index: group.groupTypeIndex,
    created_at: drfTimestamp(group.createdAt),
    properties: group.properties,
    matched_recordings: [],
  };
  if (value !== undefined) actor.value_at_data_point = value;
  return actor;
}
