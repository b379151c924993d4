import { ApiError } from '../../common/errors/api-error';
import { ownValue } from '../../common/json/json-object';

/** PostHog skips definitions of longer event and property names (its name columns hold 400 characters). */
export const MAX_DEFINITION_NAME_LENGTH = 400;

export type EventTypeFilter = 'event' | 'event_custom' | 'event_posthog';

export interface DefinitionListFilters {
  /** Every term must be a case-insensitive substring of the name. */
  terms: string[];
  eventType: EventTypeFilter;
  ordering: Array<{ column: 'name' | 'last_seen_at' | 'last_seen_day'; descending: boolean }>;
}

const ORDERINGS: Record<string, DefinitionListFilters['ordering'][number]['column']> = {
  name: 'name',
  last_seen_at: 'last_seen_at',
  'last_seen_at::date': 'last_seen_day',
};

function values(raw: unknown): string[] {
  return (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter((v): v is string => typeof v === 'string');
}

/** `search`, `event_type`, `ordering` as PostHog's event definition list reads them (https://github.com/PostHog/posthog/blob/master/posthog/api/event_definition.py). */
export function parseDefinitionListFilters(query: Record<string, unknown>): DefinitionListFilters {
  const search = values(query.search).pop() ?? '';
  const type = values(query.event_type).pop();
  // `all` and `action_event` list event definitions as `event` does: PostHog's open-source list reads no actions either.
  const eventType: EventTypeFilter = type === 'event_custom' || type === 'event_posthog' ? type : 'event';
  const ordering = values(query.ordering)
    .flatMap((entry) => entry.split(','))
    .map((entry) => entry.trim())
    .flatMap((entry) => {
      // Unknown orderings are ignored, as DRF's OrderingFilter does.
      const column = ownValue(ORDERINGS, entry.replace(/^-/, ''));
      return column ? [{ column, descending: entry.startsWith('-') }] : [];
    });
  return {
    terms: search.split(/\s+/).filter(Boolean).slice(0, 10),
    eventType,
    ordering: ordering.length ? ordering : [{ column: 'last_seen_day', descending: true }, { column: 'name', descending: false }],
  };
}

/** PostHog's tag normalisation: trimmed, lower-cased, de-duplicated, empty ones dropped. */
export function normalizeTags(tags: string[]): string[] {
  return [...new Set(tags.map((tag) => tag.trim().toLowerCase()).filter(Boolean))];
}

export interface VerificationState {
  verified: boolean;
  verifiedAt: Date | null;
  verifiedById: number | null;
}

/** Verifying sets who and when once; re-verifying keeps them; unverifying clears them (PostHog EE rules). */
export function nextVerification(current: VerificationState, requested: boolean | undefined, userId: number, now: Date): VerificationState {
  if (requested === undefined || requested === current.verified) return current;
  return requested ? { verified: true, verifiedAt: now, verifiedById: userId } : { verified: false, verifiedAt: null, verifiedById: null };
}

export function ownerNotFound(owner: number): ApiError {
  return ApiError.validation(`Invalid pk "${owner}" - object does not exist.`, 'owner', 'does_not_exist');
}

/**
 * UTC day → count of events with that name, sorted so concurrent upserts lock rows in one order. Names
 * too long to have a definition are not counted.
 */
export function dailyVolumes(events: Array<{ event: string; timestamp?: string }>, now: Date): Array<{ name: string; day: string; count: number }> {
  const counts = new Map<string, { name: string; day: string; count: number }>();
  for (const { event, timestamp } of events) {
    if (event.length > MAX_DEFINITION_NAME_LENGTH) continue;
    const day = (timestamp ?? now.toISOString()).slice(0, 10);
    const key = `${event}\u0000${day}`;
    const entry = counts.get(key) ?? { name: event, day, count: 0 };
    entry.count++;
    counts.set(key, entry);
  }
  return [...counts.values()].sort((a, b) => (a.name === b.name ? a.day.localeCompare(b.day) : a.name < b.name ? -1 : 1));
}
