import { Module } from '@nestjs/common';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { OrganizationsModule } from '../organizations/organizations.module';
import { PersonalApiKeysModule } from '../personal-api-keys/personal-api-keys.module';
import { ProjectsModule } from '../projects/projects.module';
import { SessionsModule } from '../sessions/sessions.module';
import { UsersModule } from '../users/users.module';
import { AuthAudit } from './auth-audit';
import { AuthGuard } from './auth.guard';

/**
 * Who is calling: the one global guard (personal keys, sessions, project keys, the metrics token) and the boot-time
 * audit that every route says which it wants. Modules mark their routes with the decorators of auth.decorator.ts.
 */
@Module({
  imports: [DiscoveryModule, UsersModule, ProjectsModule, OrganizationsModule, PersonalApiKeysModule, SessionsModule],
  providers: [{ provide: APP_GUARD, useClass: AuthGuard }, AuthAudit],
})
export class AuthModule {}
