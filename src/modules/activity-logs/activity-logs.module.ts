import { Module } from '@nestjs/common';
import { ActivityLogsRepository } from './activity-logs.repository';
import { ActivityLogsService } from './activity-logs.service';

/** The activity log of management writes (feature flags now, persons later). */
@Module({
  providers: [ActivityLogsRepository, ActivityLogsService],
  exports: [ActivityLogsService],
})
export class ActivityLogsModule {}
