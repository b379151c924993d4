import { queryText } from '../../common/http/query-values';
import { parseId } from '../../common/validation/patterns';
import type { FlagListFilters } from './feature-flags.repository';

const TYPES = new Set(['boolean', 'multivariant', 'experiment', 'remote_config']);

/** `active` compares with "true" as PostHog does; unknown `type` values and bad ids are ignored. */
export function parseFlagListFilters(query: Record<string, unknown> | undefined): FlagListFilters {
  const filters: FlagListFilters = {};
  const active = queryText(query?.active);
  if (active !== undefined) filters.active = active === 'true';
  const createdById = parseId(queryText(query?.created_by_id));
  if (createdById !== null) filters.createdById = createdById;
  const search = queryText(query?.search);
  if (search) filters.search = search;
  const type = queryText(query?.type);
  if (type !== undefined && TYPES.has(type)) filters.type = type as FlagListFilters['type'];
  return filters;
}
