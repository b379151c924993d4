import { DynamicModule, Module, Type } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from './modules/auth/auth.module';
import type { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { dataSourceOptions } from './database/data-source';
import { ENTITIES } from './entities';
import { AnalyticsModule } from './modules/analytics/analytics.module';
import { AnalyticsCopyModule } from './modules/analytics/copy/analytics-copy.module';
import { ActivityLogsModule } from './modules/activity-logs/activity-logs.module';
import { ActionsModule } from './modules/actions/actions.module';
import { SavedInsightsModule } from './modules/saved-insights/saved-insights.module';
import { DashboardsModule } from './modules/dashboards/dashboards.module';
import { SessionsModule } from './modules/sessions/sessions.module';
import { CohortsModule } from './modules/cohorts/cohorts.module';
import { DecideModule } from './modules/decide/decide.module';
import { FeatureFlagsModule } from './modules/feature-flags/feature-flags.module';
import { RoleAccessModule } from './modules/role-access/role-access.module';
import { RolesModule } from './modules/roles/roles.module';
import { EventDefinitionsModule } from './modules/event-definitions/event-definitions.module';
import { HealthModule } from './modules/health/health.module';
import { IngestionModule } from './modules/ingestion/ingestion.module';
import { MetricsModule } from './modules/metrics/metrics.module';
import { OrganizationsModule } from './modules/organizations/organizations.module';
import { PersonalApiKeysModule } from './modules/personal-api-keys/personal-api-keys.module';
import { ProjectsModule } from './modules/projects/projects.module';
import { ProvisioningModule } from './modules/provisioning/provisioning.module';
import { RemoteConfigModule } from './modules/remote-config/remote-config.module';
import { UsersModule } from './modules/users/users.module';
import type { QueueConnection } from './queues/queue-connection';
import { QueuesModule } from './queues/queues.module';
import { EventsModule } from './modules/events/events.module';
import { IngestionWarningsModule } from './modules/ingestion-warnings/ingestion-warnings.module';
import { PersonsModule } from './modules/persons/persons.module';
import { IngestionWorkerModule } from './modules/ingestion/ingestion-worker.module';

export interface RuntimeOptions {
  config: AppConfig;
  databaseUrl: string;
  queue: QueueConnection;
}

/** What every role needs: configuration, the database, the queues, metrics and provisioning. */
function coreImports(runtime: RuntimeOptions): Array<DynamicModule | Type> {
  return [
    ConfigModule.forRoot(runtime.config),
    TypeOrmModule.forRoot(dataSourceOptions(runtime.databaseUrl, runtime.config.database.poolSize, ENTITIES)),
    QueuesModule.forRoot(runtime.queue, runtime.config.ingestion.partitions),
    MetricsModule,
    ProvisioningModule,
  ];
}

/** The HTTP side: every resource module, the global auth guard and its boot-time audit. */
@Module({
  imports: [
    AuthModule,
    HealthModule,
    OrganizationsModule,
    ProjectsModule,
    UsersModule,
    PersonalApiKeysModule,
    EventDefinitionsModule,
    IngestionModule,
    RemoteConfigModule,
    ActivityLogsModule,
    CohortsModule,
    ActionsModule,
    SavedInsightsModule,
    DashboardsModule,
    SessionsModule,
    RolesModule,
    FeatureFlagsModule,
    RoleAccessModule,
    DecideModule,
    PersonsModule,
    EventsModule,
    IngestionWarningsModule,
    AnalyticsModule,
  ],
})
export class ApiModule {}

/** Which halves a process runs; the CLI runs neither. */
export interface ProcessParts {
  api: boolean;
  workers: boolean;
  /** The analytics copy without the HTTP side (the CLI's `analytics rebuild`); the API has it anyway. */
  analyticsCopy?: boolean;
}

export function partsForRole(role: AppConfig['role']): ProcessParts {
  return { api: role === 'api' || role === 'all', workers: role === 'worker' || role === 'all' };
}

/** The root module for a process role: `api`, `worker` or `all`. */
@Module({})
export class AppModule {
  static forRoot(runtime: RuntimeOptions, parts: ProcessParts = partsForRole(runtime.config.role)): DynamicModule {
    const imports = coreImports(runtime);
    if (parts.api) imports.push(ApiModule);
    else if (parts.analyticsCopy) imports.push(AnalyticsCopyModule);
    if (parts.workers) imports.push(IngestionWorkerModule.forRoot(runtime.config.ingestion.partitions, runtime.queue.workerConnection));
    return { module: AppModule, imports };
  }
}
