import { queryText } from '../../common/http/query-values';
import { parseId } from '../../common/validation/patterns';
import type { CohortListFilters } from './cohorts.repository';

/** `type=static|dynamic`, `created_by_id`, `search`; unknown types and bad ids are ignored, as PostHog does. */
export function parseCohortListFilters(query: Record<string, unknown> | undefined): CohortListFilters {
  const filters: CohortListFilters = {};
  const type = queryText(query?.type);
  if (type === 'static' || type === 'dynamic') filters.type = type;
  const createdById = parseId(queryText(query?.created_by_id));
  if (createdById !== null) filters.createdById = createdById;
  const search = queryText(query?.search);
  if (search) filters.search = search;
  return filters;
}
