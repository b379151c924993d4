import { parseId } from '../../common/validation/patterns';
import type { FlagListFilters } from './feature-flags.repository';

const TYPES = new Set(['boolean', 'multivariant', 'experiment', 'remote_config']);

function last(raw: unknown): string | undefined {
  const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  return typeof value === 'string' ? value : undefined;
}

/** `active` compares with "true" as PostHog does; unknown `type` values and bad ids are ignored. */
export function parseFlagListFilters(query: Record<string, unknown> | undefined): FlagListFilters {
  const filters: FlagListFilters = {};
  const active = last(query?.active);
  if (active !== undefined) filters.active = active === 'true';
  const createdById = parseId(last(query?.created_by_id));
  if (createdById !== null) filters.createdById = createdById;
  const search = last(query?.search);
  if (search) filters.search = search;
  const type = last(query?.type);
  if (type !== undefined && TYPES.has(type)) filters.type = type as FlagListFilters['type'];
  return filters;
}
