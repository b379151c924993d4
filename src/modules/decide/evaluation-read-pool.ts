import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Pool, QueryConfig, QueryResultRow } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

const GENERIC_PLANS = '-c plan_cache_mode=force_generic_plan';
/** How these sessions show in `pg_stat_activity`, unless the database URL names the application. */
export const EVALUATION_APPLICATION_NAME = 'hogbase flag evaluation';

/**
 * The connections evaluation reads persons and groups on, beside TypeORM's and with the same settings,
 * whose sessions plan each prepared statement once (`plan_cache_mode = force_generic_plan`).
 *
 * On TypeORM's pool PostgreSQL re-planned these lookups for every batch: with batches of varying size a
 * plan made for the actual list of ids is estimated cheaper than the generic one, so the plan cache never
 * switched, and planning the join costs more than running it (about 160 of the 280 µs a one-person lookup
 * took). A generic plan is still re-made whenever ANALYZE updates the tables' statistics. The setting
 * cannot go on TypeORM's pool: there it would apply to every parameterised query, including those whose
 * best plan depends on their values (date ranges, LIKE patterns).
 *
 * A pg pool opens connections only when a query needs one, so processes that never evaluate flags
 * (workers) never open any; it closes with TypeORM's, after the HTTP server has drained.
 */
@Injectable()
export class EvaluationReadPool implements OnApplicationShutdown {
  private readonly logger = new Logger(EvaluationReadPool.name);
  private readonly pool: Pool;

  constructor(@InjectDataSource() dataSource: DataSource) {
    const shared = ((dataSource.driver as PostgresDriver).master as Pool).options;
    const sessionOptions = [shared.options ?? process.env.PGOPTIONS, GENERIC_PLANS].filter(Boolean).join(' ');
    this.pool = new Pool({ ...shared, options: sessionOptions, application_name: shared.application_name ?? EVALUATION_APPLICATION_NAME });
    // An idle connection the server drops must not crash the process; the next query opens a new one.
    this.pool.on('error', (error) => this.logger.warn(`evaluation read connection lost: ${error.message}`));
  }

  query<R extends QueryResultRow>(query: QueryConfig): Promise<{ rows: R[] }> {
    return this.pool.query<R>(query);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}
