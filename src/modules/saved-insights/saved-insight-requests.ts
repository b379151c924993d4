import { ApiError } from '../../common/errors/api-error';
import { queryBoolean, queryText, querySearch } from '../../common/http/query-values';
import { didYouMean } from '../../common/text/did-you-mean';
import { parseId } from '../../common/validation/patterns';
import { FILTER_INSIGHTS, LEGACY_INSIGHT_NODES } from '../analytics/parsers/filter-to-node';
import type { SavedInsightListFilters } from './saved-insights.repository';

const MAX_IDS = 100;
/** The list's sort fields (`order=name`, `order=-last_modified_at`) and the columns they sort by. */
const ORDER_FIELDS: Readonly<Record<string, string>> = {
  order: 'i.order', id: 'i.id', name: 'i.name', created_at: 'i.createdAt', updated_at: 'i.updatedAt', last_modified_at: 'i.lastModifiedAt', favorited: 'i.favorited',
};

/** A JSON list of ids (`created_by`, `dashboards`). */
function idsOf(raw: string, attr: string, what: string): number[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  const ids = Array.isArray(parsed) && parsed.length <= MAX_IDS ? parsed.map((id) => parseId(id)) : [null];
  if (ids.some((id) => id === null)) throw ApiError.validation(`${attr} must be a JSON list of at most ${MAX_IDS} ${what} ids, e.g. [1, 2].`, attr);
  return ids as number[];
}

function orderOf(raw: string | undefined): Array<[string, 'ASC' | 'DESC']> {
  if (raw === undefined || raw === '') return [['i.order', 'ASC']];
  const field = raw.replace(/^-/, '');
  if (!Object.hasOwn(ORDER_FIELDS, field)) {
    const fields = Object.keys(ORDER_FIELDS);
    throw ApiError.validation(`order "${raw}" is not a field to sort by.${didYouMean(field, fields)} Use one of ${fields.join(', ')}, with - for descending.`, 'order');
  }
  return [[ORDER_FIELDS[field], raw.startsWith('-') ? 'DESC' : 'ASC']];
}

/**
 * PostHog's insight list filters: `saved`, `favorited` and `user` (present: mine), `short_id`, `search` (name,
 * description, tags), `created_by` and `dashboards` (JSON ids; on every dashboard named), `insight` (TRENDS …
 * LIFECYCLE), `order`.
 */
export function parseListFilters(query: Record<string, unknown>, userId: number): SavedInsightListFilters {
  const filters: SavedInsightListFilters = { order: orderOf(queryText(query.order)) };
  const saved = queryText(query.saved);
  if (saved !== undefined) filters.saved = queryBoolean(saved) === true;
  if (query.favorited !== undefined) filters.favorited = true;
  const shortId = queryText(query.short_id);
  if (shortId !== undefined) filters.shortId = shortId;
  const search = querySearch(query.search);
  if (search !== undefined) filters.search = search;
  const createdBy = queryText(query.created_by);
  if (createdBy !== undefined) filters.createdBy = idsOf(createdBy, 'created_by', 'user');
  const dashboards = queryText(query.dashboards);
  if (dashboards !== undefined) filters.dashboards = idsOf(dashboards, 'dashboards', 'dashboard');
  if (query.user !== undefined) filters.createdBy = [userId];
  const insight = queryText(query.insight);
  if (insight !== undefined) {
    const legacy = insight.toUpperCase();
    if (!Object.hasOwn(LEGACY_INSIGHT_NODES, legacy)) throw ApiError.validation(`insight "${insight}" is not an insight: use one of ${FILTER_INSIGHTS.join(', ')}.`, 'insight');
    filters.insight = { legacy, kind: LEGACY_INSIGHT_NODES[legacy] };
  }
  return filters;
}

/** `basic=true`: the list without results (PostHog's basic serializer). */
export function wantsBasic(query: Record<string, unknown>): boolean {
  const basic = queryText(query.basic);
  return basic !== undefined && queryBoolean(basic) === true;
}
