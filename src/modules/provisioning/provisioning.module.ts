import { Module } from '@nestjs/common';
import { OrganizationsModule } from '../organizations/organizations.module';
import { PersonalApiKeysModule } from '../personal-api-keys/personal-api-keys.module';
import { ProjectsModule } from '../projects/projects.module';
import { SessionsModule } from '../sessions/sessions.module';
import { UsersModule } from '../users/users.module';
import { ProvisioningService } from './provisioning.service';

@Module({
  imports: [OrganizationsModule, ProjectsModule, UsersModule, PersonalApiKeysModule, SessionsModule],
  providers: [ProvisioningService],
  exports: [ProvisioningService],
})
export class ProvisioningModule {}
