import { ActivityLogEntity } from './modules/activity-logs/activity-log.entity';
import { ActionEntity } from './modules/actions/action.entity';
import { SavedInsightEntity } from './modules/saved-insights/saved-insight.entity';
import { DashboardEntity } from './modules/dashboards/dashboard.entity';
import { CohortEntity } from './modules/cohorts/cohort.entity';
import { FeatureFlagEntity } from './modules/feature-flags/feature-flag.entity';
import { FlagRoleGrantEntity } from './modules/roles/flag-role-grant.entity';
import { OrganizationResourceAccessEntity } from './modules/roles/organization-resource-access.entity';
import { RoleMembershipEntity } from './modules/roles/role-membership.entity';
import { RoleEntity } from './modules/roles/role.entity';
import { EventDefinitionEntity } from './modules/event-definitions/event-definition.entity';
import { PropertyDefinitionEntity } from './modules/event-definitions/property-definition.entity';
import { OrganizationMembershipEntity } from './modules/organizations/organization-membership.entity';
import { OrganizationEntity } from './modules/organizations/organization.entity';
import { PersonalApiKeyEntity } from './modules/personal-api-keys/personal-api-key.entity';
import { ProjectEntity } from './modules/projects/project.entity';
import { UserEntity } from './modules/users/user.entity';

/** Every TypeORM entity of the modules, given to the connection by the root module that assembles them. */
export const ENTITIES = [
  OrganizationEntity,
  OrganizationMembershipEntity,
  ProjectEntity,
  UserEntity,
  PersonalApiKeyEntity,
  EventDefinitionEntity,
  PropertyDefinitionEntity,
  ActivityLogEntity,
  CohortEntity,
  ActionEntity,
  SavedInsightEntity,
  DashboardEntity,
  FeatureFlagEntity,
  RoleEntity,
  RoleMembershipEntity,
  OrganizationResourceAccessEntity,
  FlagRoleGrantEntity,
];
