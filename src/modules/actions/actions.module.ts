import { Module } from '@nestjs/common';
import { ActivityLogsModule } from '../activity-logs/activity-logs.module';
import { ActionsController } from './actions.controller';
import { ActionsRepository } from './actions.repository';
import { ActionsService } from './actions.service';

/** Actions: the management API, and the definitions insights resolve `actions` series against. */
@Module({
  imports: [ActivityLogsModule],
  controllers: [ActionsController],
  providers: [ActionsRepository, ActionsService],
  exports: [ActionsService],
})
export class ActionsModule {}
