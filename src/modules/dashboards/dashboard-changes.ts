import { ApiError } from '../../common/errors/api-error';
import { checkedDashboardFilters } from './dashboard-filters';
import type { DashboardEntity } from './dashboard.entity';
import type { CreateDashboardDto, UpdateDashboardDto } from './dto/dashboard.dto';

/** The columns a create or update writes. */
export interface DashboardColumns {
  name: string | null;
  description: string;
  pinned: boolean;
  filters: Record<string, unknown>;
  tags: string[];
  deleted: boolean;
}

export const DASHBOARD_ACTIVITY_FIELDS = ['name', 'description', 'pinned', 'filters', 'tags', 'deleted'] as const;

export function columnsForCreate(dto: CreateDashboardDto): DashboardColumns {
  return {
    name: dto.name ?? null,
    description: dto.description ?? '',
    pinned: dto.pinned ?? false,
    filters: checkedDashboardFilters(dto.filters, 'filters') as Record<string, unknown>,
    tags: dto.tags ?? [],
    deleted: false,
  };
}

export function columnsOf(dashboard: DashboardEntity): DashboardColumns {
  return { name: dashboard.name, description: dashboard.description, pinned: dashboard.pinned, filters: dashboard.filters, tags: dashboard.tags, deleted: dashboard.deleted };
}

export function columnsForUpdate(current: DashboardColumns, dto: UpdateDashboardDto): DashboardColumns {
  if (dto.delete_insights !== undefined && dto.deleted !== true) throw ApiError.validation('delete_insights goes with deleted: true.', 'delete_insights');
  return {
    name: dto.name === undefined ? current.name : dto.name,
    description: dto.description ?? current.description,
    pinned: dto.pinned ?? current.pinned,
    filters: dto.filters === undefined ? current.filters : (checkedDashboardFilters(dto.filters, 'filters') as Record<string, unknown>),
    tags: dto.tags ?? current.tags,
    deleted: dto.deleted ?? current.deleted,
  };
}

/** The activity-log view of a dashboard (PostHog's field names). */
export function activityView(columns: DashboardColumns): Record<string, unknown> {
  return { ...columns };
}
