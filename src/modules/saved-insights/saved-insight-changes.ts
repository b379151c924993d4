import { ApiError } from '../../common/errors/api-error';
import { isJsonObject } from '../../common/json/json-object';
import { INSIGHT_NODES } from '../analytics/parsers/query-node.parser';
import type { CreateSavedInsightDto, UpdateSavedInsightDto } from './dto/saved-insight.dto';
import type { SavedInsightEntity } from './saved-insight.entity';

/** The columns a create or update writes. */
export interface SavedInsightColumns {
  name: string | null;
  derivedName: string | null;
  description: string | null;
  query: Record<string, unknown> | null;
  filters: Record<string, unknown>;
  favorited: boolean;
  saved: boolean;
  deleted: boolean;
  order: number | null;
  tags: string[];
}

/** Fields compared for the activity log, in PostHog's model field order. */
export const INSIGHT_ACTIVITY_FIELDS = ['name', 'derived_name', 'description', 'filters', 'query', 'favorited', 'saved', 'deleted', 'order', 'tags'] as const;
/** Changes to these mark the insight as modified by the user who made them (PostHog's MATERIAL_INSIGHT_FIELDS and the query). */
const MATERIAL_FIELDS = ['name', 'description', 'filters', 'query'] as const;

/** The insight node kinds a saved insight's InsightVizNode may hold: those the query API runs. */
const SAVED_QUERY_KINDS = Object.keys(INSIGHT_NODES);
const QUERY_SHAPE = `query must be an InsightVizNode: {"kind": "InsightVizNode", "source": {"kind": "TrendsQuery", …}} with a source of kind ${SAVED_QUERY_KINDS.join(', ')}.`;

/** `query` as stored: null, or an InsightVizNode over an insight node (its values are checked by parsing it). */
function checkedQuery(raw: unknown): Record<string, unknown> | null {
  if (raw === null || raw === undefined) return null;
  if (!isJsonObject(raw) || raw.kind !== 'InsightVizNode' || !isJsonObject(raw.source) || !SAVED_QUERY_KINDS.includes(String(raw.source.kind))) {
    throw ApiError.validation(QUERY_SHAPE, 'query');
  }
  return raw;
}

function checkedFilters(raw: unknown): Record<string, unknown> {
  if (raw === null || raw === undefined) return {};
  if (!isJsonObject(raw)) throw ApiError.validation('filters must be a legacy filter object, e.g. {"insight": "TRENDS", "events": [{"id": "$pageview"}]}.', 'filters');
  return raw;
}

export function columnsForCreate(dto: CreateSavedInsightDto): SavedInsightColumns {
  return {
    name: dto.name ?? null,
    derivedName: dto.derived_name ?? null,
    description: dto.description ?? null,
    query: checkedQuery(dto.query),
    filters: checkedFilters(dto.filters),
    favorited: dto.favorited ?? false,
    saved: dto.saved ?? true,
    deleted: dto.deleted ?? false,
    order: dto.order ?? null,
    tags: dto.tags ?? [],
  };
}

export function columnsOf(insight: SavedInsightEntity): SavedInsightColumns {
  return {
    name: insight.name, derivedName: insight.derivedName, description: insight.description, query: insight.query, filters: insight.filters,
    favorited: insight.favorited, saved: insight.saved, deleted: insight.deleted, order: insight.order, tags: insight.tags,
  };
}

/** An update changes the fields it sends (null clears a nullable one); any update marks the insight saved, as in PostHog. */
export function columnsForUpdate(current: SavedInsightColumns, dto: UpdateSavedInsightDto): SavedInsightColumns {
  return {
    name: dto.name === undefined ? current.name : dto.name,
    derivedName: dto.derived_name === undefined ? current.derivedName : dto.derived_name,
    description: dto.description === undefined ? current.description : dto.description,
    query: dto.query === undefined ? current.query : checkedQuery(dto.query),
    filters: dto.filters === undefined ? current.filters : checkedFilters(dto.filters),
    favorited: dto.favorited ?? current.favorited,
    saved: true,
    deleted: dto.deleted ?? current.deleted,
    order: dto.order === undefined ? current.order : dto.order,
    tags: dto.tags ?? current.tags,
  };
}

/** The activity-log view of an insight (PostHog's field names). */
export function activityView(columns: SavedInsightColumns): Record<string, unknown> {
  return {
    name: columns.name, derived_name: columns.derivedName, description: columns.description, filters: columns.filters, query: columns.query,
    favorited: columns.favorited, saved: columns.saved, deleted: columns.deleted, order: columns.order, tags: columns.tags,
  };
}

/** Whether a change touches what the insight asks or is called, which PostHog records as a modification by its author. */
export function isMaterialChange(before: SavedInsightColumns, after: SavedInsightColumns): boolean {
  const a = activityView(before);
  const b = activityView(after);
  return MATERIAL_FIELDS.some((field) => JSON.stringify(a[field]) !== JSON.stringify(b[field]));
}
