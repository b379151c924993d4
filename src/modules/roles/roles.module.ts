import { Module } from '@nestjs/common';
import { OrganizationsModule } from '../organizations/organizations.module';
import { UsersModule } from '../users/users.module';
import { FlagGrantsRepository } from './flag-grants.repository';
import { FlagGrantsService } from './flag-grants.service';
import { ResourceAccessController } from './resource-access.controller';
import { ResourceAccessRepository } from './resource-access.repository';
import { ResourceAccessService } from './resource-access.service';
import { RoleMembershipsController } from './role-memberships.controller';
import { RolesController } from './roles.controller';
import { RolesRepository } from './roles.repository';
import { RolesService } from './roles.service';

/** Roles, their members, organization resource access, and the role grants that role access manages. */
@Module({
  imports: [OrganizationsModule, UsersModule],
  controllers: [RolesController, RoleMembershipsController, ResourceAccessController],
  providers: [RolesRepository, FlagGrantsRepository, ResourceAccessRepository, RolesService, FlagGrantsService, ResourceAccessService],
  exports: [RolesService, FlagGrantsService],
})
export class RolesModule {}
