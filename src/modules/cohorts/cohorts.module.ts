import { Module } from '@nestjs/common';
import { ActivityLogsModule } from '../activity-logs/activity-logs.module';
import { ProjectsModule } from '../projects/projects.module';
import { CohortsController } from './cohorts.controller';
import { CohortsRepository } from './cohorts.repository';
import { CohortsService } from './cohorts.service';

/** Cohorts: the management API, and what flags may target and evaluation reads. */
@Module({
  imports: [ProjectsModule, ActivityLogsModule],
  controllers: [CohortsController],
  providers: [CohortsRepository, CohortsService],
  exports: [CohortsService],
})
export class CohortsModule {}
