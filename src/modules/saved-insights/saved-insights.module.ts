import { Module } from '@nestjs/common';
import { ActivityLogsModule } from '../activity-logs/activity-logs.module';
import { AnalyticsModule } from '../analytics/analytics.module';
import { DashboardTilesModule } from '../dashboard-tiles/dashboard-tiles.module';
import { SavedInsightResults } from './saved-insight-results.service';
import { SavedInsightsController } from './saved-insights.controller';
import { SavedInsightsRepository } from './saved-insights.repository';
import { SavedInsightsService } from './saved-insights.service';

/** Saved insights: named queries, with their results computed by the query API's engine and kept for every process. */
@Module({
  imports: [ActivityLogsModule, AnalyticsModule, DashboardTilesModule],
  controllers: [SavedInsightsController],
  providers: [SavedInsightsRepository, SavedInsightResults, SavedInsightsService],
  exports: [SavedInsightsService],
})
export class SavedInsightsModule {}
