import type { EventDefinitionDto } from './dto/event-definition.dto';
import type { DefinitionRow } from './event-definition-queries.repository';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** PostHog's enterprise event definition serializer, every field available: nothing is paywalled when self-hosted. */
export function eventDefinitionJson(row: DefinitionRow): EventDefinitionDto {
  return {
    id: row.id,
    name: row.name,
    owner: row.owner_id,
    description: row.description,
    tags: row.tags,
    volume_30_day: Number(row.volume_30_day),
    query_usage_30_day: Number(row.query_usage_30_day),
    created_at: row.created_at.toISOString(),
    updated_at: iso(row.updated_at),
    updated_by: row.updated_by,
    last_seen_at: iso(row.last_seen_at),
    last_updated_at: (row.updated_at ?? row.created_at).toISOString(),
    verified: row.verified,
    verified_at: iso(row.verified_at),
    verified_by: row.verified_by,
    is_action: false,
    action_id: null,
    is_calculating: false,
    last_calculated_at: null,
    created_by: null,
    post_to_chat: row.post_to_chat,
  };
}
