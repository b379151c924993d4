import { Module } from '@nestjs/common';
import { ActionsModule } from '../actions/actions.module';
import { PersonsModule } from '../persons/persons.module';
import { AnalyticsRepository } from './analytics.repository';
import { AnalyticsCopyModule } from './copy/analytics-copy.module';
import { FunnelCorrelationService } from './funnel-correlation.service';
import { FunnelsService } from './funnels.service';
import { InsightActorsService } from './insight-actors.service';
import { InsightCache } from './insight-cache';
import { InsightPersonsController } from './insight-persons.controller';
import { InsightsController } from './insights.controller';
import { InsightsService } from './insights.service';
import { LegacyInsightsService } from './legacy-insights.service';
import { QueryController } from './query.controller';
import { PathsService } from './paths.service';
import { QueryService } from './query.service';
import { RetentionService } from './retention.service';
import { StickinessLifecycleService } from './stickiness-lifecycle.service';
import { TrendsService } from './trends.service';

/**
 * Analytics: one insight query model with three doors (legacy filters, persons endpoints, the query API),
 * pure ClickHouse SQL builders per insight kind, one repository over the engine (embedded chdb or a
 * ClickHouse server), the copy that keeps ClickHouse equal to PostgreSQL, presenters per door.
 */
@Module({
  imports: [PersonsModule, AnalyticsCopyModule, ActionsModule],
  controllers: [InsightsController, InsightPersonsController, QueryController],
  providers: [AnalyticsRepository, InsightCache, TrendsService, StickinessLifecycleService, FunnelsService, FunnelCorrelationService, RetentionService, PathsService, InsightActorsService, InsightsService, LegacyInsightsService, QueryService],
  exports: [InsightsService, QueryService],
})
export class AnalyticsModule {}
