import { Module } from '@nestjs/common';
import { ActivityLogsModule } from '../activity-logs/activity-logs.module';
import { DashboardTilesModule } from '../dashboard-tiles/dashboard-tiles.module';
import { SavedInsightsModule } from '../saved-insights/saved-insights.module';
import { DashboardsController } from './dashboards.controller';
import { DashboardsRepository } from './dashboards.repository';
import { DashboardsService } from './dashboards.service';

/** Dashboards: grids of saved insights and texts, with filters that override their tiles' queries. */
@Module({
  imports: [ActivityLogsModule, DashboardTilesModule, SavedInsightsModule],
  controllers: [DashboardsController],
  providers: [DashboardsRepository, DashboardsService],
  exports: [DashboardsService],
})
export class DashboardsModule {}
