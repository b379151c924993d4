import { Module } from '@nestjs/common';
import { CohortsModule } from '../cohorts/cohorts.module';
import { FeatureFlagsModule } from '../feature-flags/feature-flags.module';
import { GroupsModule } from '../groups/groups.module';
import { ProjectsModule } from '../projects/projects.module';
import { DecideController } from './decide.controller';
import { DecideService } from './decide.service';
import { EvaluationContextRepository } from './evaluation-context.repository';
import { EvaluationReadPool } from './evaluation-read-pool';
import { BlastRadiusRepository } from './blast-radius.repository';
import { FlagEvaluationService } from './flag-evaluation.service';
import { FlagInsightsController } from './flag-insights.controller';
import { FlagInsightsService } from './flag-insights.service';
import { FlagSnapshotsService } from './flag-snapshots.service';
import { LocalEvaluationController } from './local-evaluation.controller';
import { LocalEvaluationService } from './local-evaluation.service';

/** Flag evaluation: `/decide/`, `/flags/`, local evaluation and the evaluation-backed flag endpoints. */
@Module({
  imports: [FeatureFlagsModule, CohortsModule, GroupsModule, ProjectsModule],
  controllers: [DecideController, LocalEvaluationController, FlagInsightsController],
  providers: [DecideService, LocalEvaluationService, FlagInsightsService, BlastRadiusRepository, FlagEvaluationService, FlagSnapshotsService, EvaluationContextRepository, EvaluationReadPool],
  exports: [FlagSnapshotsService, FlagEvaluationService],
})
export class DecideModule {}
