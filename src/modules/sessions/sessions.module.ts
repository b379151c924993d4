import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module';
import { SessionsController } from './sessions.controller';
import { SessionsRepository } from './sessions.repository';
import { SessionsService } from './sessions.service';

/** Sign-in for people: passwords, server-side sessions (the console's cookie), the lockout after failures. */
@Module({
  imports: [UsersModule],
  controllers: [SessionsController],
  providers: [SessionsRepository, SessionsService],
  exports: [SessionsService],
})
export class SessionsModule {}
