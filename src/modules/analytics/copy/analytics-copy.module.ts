import { Module } from '@nestjs/common';
import { AnalyticsEngineModule } from '../engine/analytics-engine.module';
import { AnalyticsCopy } from './analytics-copy.service';

/** The ClickHouse copy of PostgreSQL's events and persons, on this process's engine (insights and the CLI use it). */
@Module({
  imports: [AnalyticsEngineModule],
  providers: [AnalyticsCopy],
  exports: [AnalyticsCopy, AnalyticsEngineModule],
})
export class AnalyticsCopyModule {}
