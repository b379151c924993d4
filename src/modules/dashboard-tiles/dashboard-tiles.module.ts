import { Module } from '@nestjs/common';
import { DashboardTilesRepository } from './dashboard-tiles.repository';
import { DashboardTilesService } from './dashboard-tiles.service';

/** The tiles that put saved insights (and texts) on dashboards; used by both saved insights and dashboards. */
@Module({
  providers: [DashboardTilesRepository, DashboardTilesService],
  exports: [DashboardTilesService],
})
export class DashboardTilesModule {}
