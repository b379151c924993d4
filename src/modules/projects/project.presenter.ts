import type { ProjectDto, TeamBasicDto } from './dto/project.dto';
import type { ProjectEntity } from './project.entity';

export function teamBasicJson(project: ProjectEntity): TeamBasicDto {
  return {
    id: project.id,
    uuid: project.uuid,
    organization: project.organizationId,
    project_id: project.id,
    api_token: project.apiToken,
    name: project.name,
    completed_snippet_onboarding: project.ingestedEvent,
    has_completed_onboarding_for: null,
    ingested_event: project.ingestedEvent,
    is_demo: false,
    timezone: project.timezone,
    access_control: false,
  };
}

export function projectJson(project: ProjectEntity, membershipLevel: number | null): ProjectDto {
  return {
    ...teamBasicJson(project),
    app_urls: project.appUrls,
    test_account_filters: project.testAccountFilters,
    path_cleaning_filters: project.pathCleaningFilters,
    created_at: project.createdAt.toISOString(),
    updated_at: project.updatedAt.toISOString(),
    effective_membership_level: membershipLevel,
  };
}
