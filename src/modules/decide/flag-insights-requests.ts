import { ApiError } from '../../common/errors/api-error';
import { isJsonObject } from '../../common/json/json-object';
import type { FlagCondition, PropertyFilter } from '../../kernel/flag-filters';

/** What `user_blast_radius` measures: one condition set, for persons or for groups of one type. */
export interface BlastRadiusRequest {
  properties: PropertyFilter[];
  groupTypeIndex: number | null;
}

const invalid = (detail: string, attr: string | null = null) => ApiError.validation(detail, attr);

/** `?groups=` of my_flags and evaluation_reasons: a JSON object of group type → key (default `{}`). */
export function parseGroupsParam(raw: unknown): Record<string, string> {
  if (raw === undefined || raw === '') return {};
  let parsed: unknown;
  try {
    parsed = typeof raw === 'string' ? JSON.parse(raw) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!isJsonObject(parsed)) throw invalid('groups must be a JSON object of group type to group key.', 'groups');
  // A group type may be named `__proto__`: a plain object would drop it.
  const groups: Record<string, string> = Object.create(null);
  for (const [type, key] of Object.entries(parsed)) {
    if (typeof key !== 'string' && typeof key !== 'number') throw invalid('groups must be a JSON object of group type to group key.', 'groups');
    groups[type] = String(key);
  }
  return groups;
}

/** `?distinct_id=` of evaluation_reasons, with PostHog's message when it is missing. */
export function requireDistinctId(raw: unknown): string {
  if (typeof raw !== 'string' || raw === '') throw invalid('distinct_id is required');
  return raw;
}

function groupTypeIndexOf(raw: unknown): number | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 && raw <= 4) return raw;
  throw invalid('group_type_index must be an integer between 0 and 4.', 'group_type_index');
}

/**
 * The body of `user_blast_radius`. The rollout is ignored, as in PostHog:
 * the caller applies it. In group mode every property must name the requested group type.
 */
export function parseBlastRadiusRequest(body: unknown): BlastRadiusRequest {
  const bag = isJsonObject(body) ? body : {};
  if (!('condition' in bag)) throw invalid('Missing condition for which to get blast radius');
  const condition = bag.condition as FlagCondition;
  if (!isJsonObject(condition)) throw invalid('condition must be an object.', 'condition');
  const properties = condition.properties ?? [];
  if (!Array.isArray(properties) || !properties.every(isJsonObject)) throw invalid('condition.properties must be a list of property filters.', 'condition');
  const groupTypeIndex = groupTypeIndexOf(bag.group_type_index);
  if (groupTypeIndex !== null && properties.some((p) => p.group_type_index !== groupTypeIndex)) {
    throw invalid('Invalid group type index for feature flag condition.');
  }
  return { properties: properties as PropertyFilter[], groupTypeIndex };
}
