import type { InsightPlacement } from '../dashboard-tiles/dashboard-tiles.service';
import { optionalUserBasicJson } from '../users/user-basic.presenter';
import type { SavedInsightBasicDto, SavedInsightDto } from './dto/saved-insight.dto';
import type { InsightResultView } from './saved-insight-results.service';
import { insightNode } from './saved-insight-results.service';
import type { SavedInsightEntity } from './saved-insight.entity';

/**
 * The query an insight is shown with: its own, or an InsightVizNode over the node its legacy filter stands for, with
 * `filters` then empty, as PostHog shows converted insights.
 */
function shownQuery(insight: SavedInsightEntity): Record<string, unknown> | null {
  if (insight.query) return insight.query;
  const node = insightNode(insight);
  return node ? { kind: 'InsightVizNode', source: node, full: true } : null;
}

/** PostHog's basic insight serializer (`?basic=true`). */
export function savedInsightBasicJson(insight: SavedInsightEntity, placement: InsightPlacement, result: Pick<InsightResultView, 'lastRefresh'> | null): SavedInsightBasicDto {
  return {
    id: insight.id,
    short_id: insight.shortId,
    name: insight.name,
    derived_name: insight.derivedName,
    filters: {},
    query: shownQuery(insight),
    dashboards: placement.dashboards,
    dashboard_tiles: placement.tiles,
    description: insight.description,
    last_refresh: result?.lastRefresh?.toISOString() ?? null,
    refreshing: false,
    saved: insight.saved,
    tags: insight.tags,
    updated_at: insight.updatedAt.toISOString(),
    created_by: optionalUserBasicJson(insight.createdBy),
    created_at: insight.createdAt.toISOString(),
    last_modified_at: insight.lastModifiedAt.toISOString(),
    favorited: insight.favorited,
    user_access_level: 'editor',
    last_viewed_at: null,
  };
}

/** PostHog's insight serializer: the insight and its result as the read's `refresh` computed it. */
export function savedInsightJson(insight: SavedInsightEntity, placement: InsightPlacement, result: InsightResultView, timezone: string): SavedInsightDto {
  return {
    ...savedInsightBasicJson(insight, placement, result),
    order: insight.order,
    deleted: insight.deleted,
    cache_target_age: result.cacheTargetAge?.toISOString() ?? null,
    next_allowed_client_refresh: result.nextAllowedClientRefresh?.toISOString() ?? null,
    result: result.result,
    hasMore: null,
    columns: null,
    last_modified_by: optionalUserBasicJson(insight.lastModifiedBy),
    is_sample: false,
    effective_restriction_level: 21,
    effective_privilege_level: 37,
    timezone,
    is_cached: result.isCached,
    query_status: result.queryStatus,
    hogql: null,
    types: null,
    alerts: [],
  };
}
