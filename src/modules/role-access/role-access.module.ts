import { Module } from '@nestjs/common';
import { FeatureFlagsModule } from '../feature-flags/feature-flags.module';
import { RolesModule } from '../roles/roles.module';
import { RoleAccessController } from './role-access.controller';
import { RoleAccessService } from './role-access.service';

@Module({
  imports: [FeatureFlagsModule, RolesModule],
  controllers: [RoleAccessController],
  providers: [RoleAccessService],
})
export class RoleAccessModule {}
