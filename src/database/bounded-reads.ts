import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { isQueryTimeout, queryTimeoutError } from './query-errors';

/** Work on one main-pool connection whose every statement stops at the management query timeout. */
export type BoundedRead = <T>(work: (em: EntityManager) => Promise<T>) => Promise<T>;

/**
 * The one way management reads whose cost the caller chooses (filters, searches, ordering, offsets) reach the
 * main pool: ingestion and flag evaluation share that pool, so no such read may hold a connection for longer
 * than MANAGEMENT_QUERY_TIMEOUT_MS per statement. Writes and the capture and flag paths never come here.
 */
@Injectable()
export class BoundedReads {
  private readonly timeoutMs: number;

  constructor(@InjectDataSource() private readonly dataSource: DataSource, @Inject(APP_CONFIG) config: AppConfig) {
    this.timeoutMs = config.management.queryTimeoutMs;
  }

  /**
   * `work` inside a transaction that carries the timeout; a statement stopped by it becomes a 504 that tells the
   * caller `advice` (what to narrow). SET LOCAL ends with the transaction, commit or rollback, so the connection
   * goes back to the pool with the server's own setting.
   */
  async run<T>(advice: string, work: (em: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.dataSource.transaction(async (em) => {
        await em.query(`SET LOCAL statement_timeout = ${this.timeoutMs}`);
        return work(em);
      });
    } catch (error) {
      if (!isQueryTimeout(error)) throw error;
      throw queryTimeoutError({ what: 'query', ms: this.timeoutMs, variable: 'MANAGEMENT_QUERY_TIMEOUT_MS', advice });
    }
  }

  /** `run` with the advice fixed, for a read that spreads its statements over several connections at once. */
  reader(advice: string): BoundedRead {
    return (work) => this.run(advice, work);
  }
}
