import { Module } from '@nestjs/common';
import { CohortsRepository } from './cohorts.repository';
import { CohortsService } from './cohorts.service';

/** Cohorts: what flags may target. */
@Module({
  providers: [CohortsRepository, CohortsService],
  exports: [CohortsService],
})
export class CohortsModule {}
