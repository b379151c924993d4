import { EventDefinitionEntity } from '../modules/event-definitions/event-definition.entity';
import { PropertyDefinitionEntity } from '../modules/event-definitions/property-definition.entity';
import { OrganizationMembershipEntity } from '../modules/organizations/organization-membership.entity';
import { OrganizationEntity } from '../modules/organizations/organization.entity';
import { PersonalApiKeyEntity } from '../modules/personal-api-keys/personal-api-key.entity';
import { ProjectEntity } from '../modules/projects/project.entity';
import { UserEntity } from '../modules/users/user.entity';

export const ENTITIES = [
  OrganizationEntity,
  OrganizationMembershipEntity,
  ProjectEntity,
  UserEntity,
  PersonalApiKeyEntity,
  EventDefinitionEntity,
  PropertyDefinitionEntity,
];
