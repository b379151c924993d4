import { parseId } from '../../common/validation/patterns';
import type { CohortListFilters } from './cohorts.repository';

function last(raw: unknown): string | undefined {
  const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  return typeof value === 'string' ? value : undefined;
}

/** `type=static|dynamic`, `created_by_id`, `search`; unknown types and bad ids are ignored, as PostHog does. */
export function parseCohortListFilters(query: Record<string, unknown> | undefined): CohortListFilters {
  const filters: CohortListFilters = {};
  const type = last(query?.type);
  if (type === 'static' || type === 'dynamic') filters.type = type;
  const createdById = parseId(last(query?.created_by_id));
  if (createdById !== null) filters.createdById = createdById;
  const search = last(query?.search);
  if (search) filters.search = search;
  return filters;
}
