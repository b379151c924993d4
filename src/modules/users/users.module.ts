import { Module } from '@nestjs/common';
import { EventDefinitionsModule } from '../event-definitions/event-definitions.module';
import { OrganizationsModule } from '../organizations/organizations.module';
import { ProjectsModule } from '../projects/projects.module';
import { CurrentUserService } from './current-user.service';
import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  imports: [OrganizationsModule, ProjectsModule, EventDefinitionsModule],
  controllers: [UsersController],
  providers: [UsersRepository, UsersService, CurrentUserService],
  exports: [UsersService],
})
export class UsersModule {}
