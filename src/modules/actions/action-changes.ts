import { ApiError } from '../../common/errors/api-error';
import { ActionStep, parseSteps } from './action-steps';
import type { ActionEntity } from './action.entity';
import type { CreateActionDto, UpdateActionDto } from './dto/action.dto';

/** The columns a create or update writes. */
export interface ActionColumns {
  name: string;
  description: string;
  tags: string[];
  postToSlack: boolean;
  slackMessageFormat: string;
  steps: ActionStep[];
  deleted: boolean;
  pinnedAt: Date | null;
}

/** Fields compared for the activity log, in PostHog's model field order. */
export const ACTION_ACTIVITY_FIELDS = ['name', 'description', 'tags', 'post_to_slack', 'slack_message_format', 'steps', 'deleted', 'pinned_at'] as const;

/** Pinning stamps the server's time, whatever time was sent (as PostHog does); null unpins. */
function pinnedAt(value: string | null | undefined, current: Date | null): Date | null {
  return value === undefined ? current : value === null ? null : new Date();
}

function checkedName(name: string): string {
  if (name.trim() === '') throw ApiError.validation('name is required: what the action is called in insights and lists.', 'name');
  return name;
}

export function columnsForCreate(dto: CreateActionDto): ActionColumns {
  return {
    name: checkedName(dto.name ?? ''),
    description: dto.description ?? '',
    tags: dto.tags ?? [],
    postToSlack: dto.post_to_slack ?? false,
    slackMessageFormat: dto.slack_message_format ?? '',
    steps: dto.steps === undefined || dto.steps === null ? [] : parseSteps(dto.steps),
    deleted: dto.deleted ?? false,
    pinnedAt: pinnedAt(dto.pinned_at, null),
  };
}

export function columnsOf(action: ActionEntity): ActionColumns {
  return {
    name: action.name, description: action.description, tags: action.tags, postToSlack: action.postToSlack, slackMessageFormat: action.slackMessageFormat,
    steps: action.steps, deleted: action.deleted, pinnedAt: action.pinnedAt,
  };
}

/** An update changes the fields it sends; `steps` replaces the whole list (`[]` removes every step), as in PostHog. */
export function columnsForUpdate(current: ActionColumns, dto: UpdateActionDto): ActionColumns {
  return {
    name: dto.name === undefined ? current.name : checkedName(dto.name),
    description: dto.description ?? current.description,
    tags: dto.tags ?? current.tags,
    postToSlack: dto.post_to_slack ?? current.postToSlack,
    slackMessageFormat: dto.slack_message_format ?? current.slackMessageFormat,
    steps: dto.steps === undefined || dto.steps === null ? current.steps : parseSteps(dto.steps),
    deleted: dto.deleted ?? current.deleted,
    pinnedAt: pinnedAt(dto.pinned_at, current.pinnedAt),
  };
}

/** The activity-log view of an action (PostHog's field names). */
export function activityView(columns: ActionColumns): Record<string, unknown> {
  return {
    name: columns.name,
    description: columns.description,
    tags: columns.tags,
    post_to_slack: columns.postToSlack,
    slack_message_format: columns.slackMessageFormat,
    steps: columns.steps,
    deleted: columns.deleted,
    pinned_at: columns.pinnedAt?.toISOString() ?? null,
  };
}
