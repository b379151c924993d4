import cluster from 'node:cluster';
import { Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { ANALYTICS_ENGINE, AnalyticsEngine } from './analytics-engine';
import { engineLimits } from './engine-choice';
import { withQueryErrors } from './engine-errors';
import { openAnalyticsEngine } from './open-engine';

const logger = new Logger('AnalyticsEngine');

/** Closes the engine after the HTTP server has stopped, so no request is left with a closed engine. */
@Injectable()
class AnalyticsEngineCloser implements OnApplicationShutdown {
  constructor(@Inject(ANALYTICS_ENGINE) private readonly engine: AnalyticsEngine) {}

  async onApplicationShutdown(): Promise<void> {
    await this.engine.close();
  }
}

/**
 * Provides {@link ANALYTICS_ENGINE}: the server at CLICKHOUSE_URL, else the embedded engine (through the
 * primary in a child of an API cluster), else the unavailable one. Query failures are translated into the
 * service's errors here, once, whichever engine runs them. The schema is migrated by the one process that
 * owns it: this one, unless it is a cluster child (the primary migrated before forking).
 */
@Module({
  providers: [
    {
      provide: ANALYTICS_ENGINE,
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig): Promise<AnalyticsEngine> => {
        const log = (level: 'info' | 'error', message: string) => (level === 'info' ? logger.log(message) : logger.error(message));
        const engine = await openAnalyticsEngine(config, log, { clusterChild: cluster.isWorker, migrate: !cluster.isWorker });
        return withQueryErrors(engine, engineLimits(config));
      },
    },
    AnalyticsEngineCloser,
  ],
  exports: [ANALYTICS_ENGINE],
})
export class AnalyticsEngineModule {}
