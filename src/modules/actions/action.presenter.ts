import { optionalUserBasicJson } from '../users/user-basic.presenter';
import type { ActionEntity } from './action.entity';
import type { ActionDto } from './dto/action.dto';

/** PostHog's ActionSerializer. Actions are matched when insights run, so they are never calculating. */
export function actionJson(action: ActionEntity): ActionDto {
  return {
    id: action.id,
    name: action.name,
    description: action.description,
    tags: action.tags,
    post_to_slack: action.postToSlack,
    slack_message_format: action.slackMessageFormat,
    steps: action.steps,
    created_at: action.createdAt.toISOString(),
    created_by: optionalUserBasicJson(action.createdBy),
    deleted: action.deleted,
    is_calculating: false,
    last_calculated_at: action.updatedAt.toISOString(),
    team_id: action.projectId,
    is_action: true,
    bytecode_error: null,
    pinned_at: action.pinnedAt?.toISOString() ?? null,
  };
}
