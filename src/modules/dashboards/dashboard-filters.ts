import { ApiError } from '../../common/errors/api-error';
import { isJsonObject } from '../../common/json/json-object';

type Json = Record<string, unknown>;

/**
 * A dashboard's filters (PostHog's DashboardFilter): a date range that replaces each tile's, property filters added to
 * each tile's, and a breakdown that replaces a trend's or funnel's.
 */
export interface DashboardFilters {
  date_from?: string | null;
  date_to?: string | null;
  explicitDate?: boolean | null;
  properties?: unknown[] | null;
  breakdown_filter?: Json | null;
}

const KEYS = ['date_from', 'date_to', 'explicitDate', 'properties', 'breakdown_filter'];
const BREAKDOWN_KINDS = new Set(['TrendsQuery', 'FunnelsQuery']);

/** Checks a dashboard's (or a tile's override) filters; unknown keys are a 400 naming the ones it reads. */
export function checkedDashboardFilters(raw: unknown, attr: string): DashboardFilters {
  if (raw === null || raw === undefined) return {};
  if (!isJsonObject(raw)) throw ApiError.validation(`${attr} must be an object: {date_from, date_to, properties, breakdown_filter}.`, attr);
  const unknown = Object.keys(raw).find((key) => !KEYS.includes(key));
  if (unknown !== undefined) throw ApiError.validation(`${attr} has an unknown key ${unknown}: use ${KEYS.join(', ')}.`, attr);
  for (const key of ['date_from', 'date_to']) {
    if (raw[key] !== undefined && raw[key] !== null && typeof raw[key] !== 'string') throw ApiError.validation(`${attr}.${key} must be a date text (2026-01-31, -7d, …) or null.`, attr);
  }
  if (raw.properties !== undefined && raw.properties !== null && !Array.isArray(raw.properties)) throw ApiError.validation(`${attr}.properties must be a list of property filters.`, attr);
  if (raw.breakdown_filter !== undefined && raw.breakdown_filter !== null && !isJsonObject(raw.breakdown_filter)) throw ApiError.validation(`${attr}.breakdown_filter must be an object.`, attr);
  return raw as DashboardFilters;
}

/** An insight's property filters as one AND group (a list, or a group as it is). */
function asGroup(properties: unknown): Json {
  return isJsonObject(properties) && typeof properties.type === 'string' ? properties : { type: 'AND', values: Array.isArray(properties) ? properties : [] };
}

/**
 * An insight node as a dashboard shows it, PostHog's way (`QueryRunner.apply_dashboard_filters`): a dashboard date
 * replaces the node's whole range; its properties are AND-ed with the node's; its breakdown replaces a trend's or a
 * funnel's. A node the filters leave alone is returned as it is, so it shares the insight's own cached result.
 */
export function withDashboardFilters(node: Json, filters: DashboardFilters): Json {
  let shown = node;
  if (filters.date_from || filters.date_to) {
    shown = { ...shown, dateRange: { date_from: filters.date_from ?? null, date_to: filters.date_to ?? null, ...(filters.explicitDate ? { explicitDate: true } : {}) } };
  }
  if (filters.properties && filters.properties.length > 0) {
    const own = node.properties;
    const ownEmpty = own === undefined || own === null || (Array.isArray(own) && own.length === 0);
    const added = { type: 'AND', values: filters.properties };
    shown = { ...shown, properties: ownEmpty ? added : { type: 'AND', values: [asGroup(own), added] } };
  }
  if (filters.breakdown_filter && BREAKDOWN_KINDS.has(String(node.kind))) shown = { ...shown, breakdownFilter: filters.breakdown_filter };
  return shown;
}
