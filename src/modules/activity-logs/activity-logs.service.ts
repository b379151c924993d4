import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { queryInteger, withQueryParams } from '../../common/http/pagination';
import type { ActivityLogEntryDto, ActivityLogPageDto } from './dto/activity-log.dto';
import { ActivityLogEntity } from './activity-log.entity';
import type { ActivityChange } from './activity-changes';
import { ActivityLogsRepository, NewActivity } from './activity-logs.repository';

/** What was done to which item of which scope, with its field changes and the name it is shown by. */
export interface ItemChange {
  scope: string;
  itemId: number | string;
  activity: string;
  changes: ActivityChange[] | null;
  name: string | null;
  /** An insight's short id, which PostHog's insight activity carries to link to it. */
  shortId?: string;
}

/** PostHog's activity pages default to 10 entries. */
const DEFAULT_ACTIVITY_LIMIT = 10;
const MAX_ACTIVITY_LIMIT = 1000;

export interface ActivityPageRequest {
  limit: number;
  page: number;
}

/** Zero counts as absent, like a value that is not a number. */
function positiveInt(raw: unknown): number | null {
  return queryInteger(raw) || null;
}

/** `?limit=&page=` (1-based) as PostHog's `activity_page` reads them; bad values fall back. */
export function parseActivityPage(query: Record<string, unknown> | undefined): ActivityPageRequest {
  const limit = Math.min(positiveInt(query?.limit) ?? DEFAULT_ACTIVITY_LIMIT, MAX_ACTIVITY_LIMIT);
  return { limit, page: positiveInt(query?.page) ?? 1 };
}


export function activityEntryJson(row: ActivityLogEntity): ActivityLogEntryDto {
  let user: ActivityLogEntryDto['user'] = null;
  if (row.isSystem) user = { first_name: 'System', email: null, is_system: true };
  else if (row.user) user = { first_name: row.user.firstName, email: row.user.email };
  return {
    id: row.id,
    user,
    activity: row.activity,
    created_at: row.createdAt.toISOString(),
    scope: row.scope,
    item_id: row.itemId,
    detail: row.detail,
  };
}

@Injectable()
export class ActivityLogsService {
  constructor(private readonly logs: ActivityLogsRepository) {}

  private record(em: EntityManager, projectId: number, entry: NewActivity): Promise<void> {
    return this.logs.insert(em, projectId, entry);
  }

  /** A user's change to one item of a project (created, updated, deleted…), recorded in the caller's transaction. */
  recordChange(em: EntityManager, project: { id: number; organizationId: string }, userId: number, change: ItemChange): Promise<void> {
    return this.record(em, project.id, {
      organizationId: project.organizationId,
      userId,
      activity: change.activity,
      scope: change.scope,
      itemId: String(change.itemId),
      detail: { changes: change.changes, trigger: null, name: change.name, short_id: change.shortId ?? null, type: null },
    });
  }

  async page(projectId: number, scope: string, itemId: string | null, request: ActivityPageRequest, url: URL): Promise<ActivityLogPageDto> {
    const { limit, page } = request;
    const { rows, count } = await this.logs.page(projectId, scope, itemId, limit, (page - 1) * limit);
    return {
      results: rows.map(activityEntryJson),
      next: page * limit < count ? withQueryParams(url, { page: page + 1, limit }) : null,
      previous: page > 1 ? withQueryParams(url, { page: page - 1, limit }) : null,
      total_count: count,
    };
  }
}
