import type { TileRow } from '../dashboard-tiles/dashboard-tiles.repository';
import type { SavedInsightDto } from '../saved-insights/dto/saved-insight.dto';
import { optionalUserBasicJson } from '../users/user-basic.presenter';
import type { DashboardEntity } from './dashboard.entity';
import type { DashboardBasicDto, DashboardDto, DashboardTileDto } from './dto/dashboard.dto';

/** PostHog's basic dashboard serializer (the list). Everyone in the project may edit (restriction level 21). */
export function dashboardBasicJson(dashboard: DashboardEntity): DashboardBasicDto {
  return {
    id: dashboard.id,
    name: dashboard.name,
    description: dashboard.description,
    pinned: dashboard.pinned,
    created_at: dashboard.createdAt.toISOString(),
    created_by: optionalUserBasicJson(dashboard.createdBy),
    last_accessed_at: dashboard.lastAccessedAt?.toISOString() ?? null,
    is_shared: false,
    deleted: dashboard.deleted,
    creation_mode: dashboard.creationMode,
    tags: dashboard.tags,
    restriction_level: 21,
    effective_restriction_level: 21,
    effective_privilege_level: 37,
    user_access_level: 'editor',
    access_control_version: 'v2',
  };
}

/** A tile: its insight (with the result its dashboard's filters give) or its text, and how it is shown. */
export function tileJson(tile: TileRow, order: number, insight: SavedInsightDto | null): DashboardTileDto {
  return {
    id: tile.id,
    insight,
    text: tile.textBody === null ? null : { id: tile.id, body: tile.textBody, created_by: null, last_modified_at: tile.lastModifiedAt.toISOString() },
    layouts: tile.layouts,
    color: tile.color,
    filters_overrides: tile.filtersOverrides,
    show_description: tile.showDescription,
    transparent_background: tile.transparentBackground,
    order,
    last_refresh: insight?.last_refresh ?? null,
    is_cached: insight?.is_cached ?? false,
  };
}

/** PostHog's dashboard serializer; `filters` are the ones this read applied (stored, with any override). */
export function dashboardJson(dashboard: DashboardEntity, filters: Record<string, unknown>, tiles: DashboardTileDto[]): DashboardDto {
  const refreshed = tiles.map((tile) => tile.last_refresh).filter((at): at is string => at !== null).sort();
  return {
    ...dashboardBasicJson(dashboard),
    filters,
    persisted_filters: dashboard.filters,
    variables: {},
    persisted_variables: {},
    breakdown_colors: [],
    data_color_theme_id: null,
    last_refresh: refreshed.length ? refreshed[refreshed.length - 1] : null,
    team_id: dashboard.projectId,
    tiles,
  };
}

/** Tiles in grid order, as PostHog sorts them: by their desktop layout's row, then column, then id. */
export function inGridOrder(tiles: TileRow[]): TileRow[] {
  const place = (tile: TileRow) => {
    const sm = tile.layouts.sm as { x?: unknown; y?: unknown } | undefined;
    return [typeof sm?.y === 'number' ? sm.y : Number.MAX_SAFE_INTEGER, typeof sm?.x === 'number' ? sm.x : Number.MAX_SAFE_INTEGER];
  };
  return [...tiles].sort((a, b) => {
    const [ay, ax] = place(a);
    const [by, bx] = place(b);
    return ay - by || ax - bx || a.id - b.id;
  });
}
