import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { ApiError } from '../../../common/errors/api-error';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { ANALYTICS_ENGINE, AnalyticsEngine } from '../engine/analytics-engine';
import { COPY_VERSION } from '../engine/schema/schema-migrations';
import { applyDeletions, Deletion } from './copy-deletions';
import { ChangedOwner, overridesNeeded } from './copy-overrides';
import {
  CHANGED_DISTINCT_IDS_SQL, COHORT_PERSON_COLUMNS, cohortPersonsCopySql, DELETIONS_SQL, DISTINCT_ID_COLUMNS, distinctIdsCopySql,
  EVENT_COLUMNS, eventsCopySql, GROUP_COLUMNS, groupsCopySql, PENDING_TXS_SQL, PERSON_COLUMNS, personsCopySql, PRUNE_DELETIONS_SQL,
  TOUCHED_PROJECTS_SQL, TxSelection,
} from './copy-reads.sql';
import { CopySource } from './copy-source';
import { CopyState, readCopyState, writeCopyState } from './copy-state';

/** Tables the copy fills, emptied by a rebuild (copy_state is kept: it numbers the batches). */
const COPIED_TABLES = ['events', 'person', 'person_distinct_id', 'person_distinct_id_overrides', 'groups', 'cohort_person'];

/** How often the deletion log is pruned of what every copy has applied (rows older than a day). */
const PRUNE_EVERY_MS = 3_600_000;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** The horizon a rebuild's `started` row carries: no transaction is applied until it commits. */
const REBUILD_HORIZON = '0';

/** Each batch has two versions for the ReplacingMergeTree tables: its deletions, then its upserts above them. */
function versions(batch: number): { deletions: number; upserts: number } {
  return { deletions: batch * 2, upserts: batch * 2 + 1 };
}

/**
 * Keeps the ClickHouse copy of what insights read (events with their owner, persons, distinct ids and the
 * overrides of merged ones, groups, static cohort members) equal to PostgreSQL, the system of record.
 *
 * Each refresh is one batch: under the copy's lock, in one PostgreSQL snapshot, it reads only the rows of
 * transactions the copy has not applied (every transaction below the last snapshot's xmin is applied; the
 * ones above it are remembered), applies their deletions from the deletion log, then their rows, and
 * commits the batch in `copy_state`. Rows carry their batch, so a batch that never committed (a process
 * killed midway) is undone by the next refresh before anything else: nothing is lost or doubled. A copy
 * with no state, or with a state of another COPY_VERSION, or after a TRUNCATE in PostgreSQL, is rebuilt.
 *
 * Insights call {@link current} before they read, so an answer includes every write committed before the
 * request; a timer refreshes meanwhile (ANALYTICS_COPY_INTERVAL_MS) so that wait stays short.
 */
@Injectable()
export class AnalyticsCopy implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(AnalyticsCopy.name);
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  private rebuilding: { copied: number } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** A refresh succeeded in this process: the copy holds a committed state to answer from. */
  private complete = false;
  /** The copy's state as this process last read or wrote it (see `state`). */
  private remembered: { last: CopyState | null; committed: CopyState | null } | null = null;
  private source: CopySource | null = null;
  private prunedAt = 0;

  constructor(
    @Inject(ANALYTICS_ENGINE) private readonly engine: AnalyticsEngine,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.engine.kind === 'unavailable') return;
    const interval = this.config.analytics.copyIntervalMs;
    if (interval > 0) this.schedule(0, interval);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.allSettled([this.running, this.queued]);
    await this.source?.close();
  }

  /**
   * Brings the copy up to date with every transaction committed before the call (the refresh that starts
   * after it, shared with every caller that arrives meanwhile), waiting at most ANALYTICS_COPY_WAIT_MS: an
   * insight is never held by PostgreSQL (a lock, a slow disk), it is answered from the copy as it stands,
   * which the timer keeps close. Only a copy that was never complete (its first build or a rebuild running,
   * or no refresh ever succeeded here) answers 503 instead.
   */
  async current(): Promise<void> {
    // Without an engine there is no copy: the engine's own 503 says why and what to set.
    if (this.engine.kind === 'unavailable') return this.engine.command('SELECT 1');
    const outcome = await Promise.race([
      this.refresh().then(() => ({ ok: true as const }), (error: Error) => ({ ok: false as const, error })),
      delay(this.config.analytics.copyWaitMs).then(() => null),
    ]);
    if (outcome?.ok) return;
    if (this.rebuilding) {
      throw ApiError.unavailable(`The analytics copy is being rebuilt from PostgreSQL (${this.rebuilding.copied} events so far): try again shortly.`);
    }
    if (!this.complete) {
      const reason = outcome ? ` (${outcome.error.message.replace(/[.\s]+$/, '')})` : '';
      throw ApiError.unavailable(`The analytics copy could not be read from PostgreSQL yet${reason}: try again shortly.`);
    }
    this.logger.warn(outcome ? `analytics copy refresh failed, answering from the copy as it stands: ${outcome.error.message}` : 'analytics copy refresh is slow, answering from the copy as it stands');
  }

  /**
   * Rebuilds the copy from PostgreSQL now (the CLI's `analytics rebuild`), reporting progress; or, when
   * this process cannot open the engine (the embedded one is open in the running service), asks the
   * service to: a `truncate` row in the deletion log makes its next refresh a rebuild.
   */
  async rebuildOrRequest(progress: (copied: number) => void): Promise<'rebuilt' | 'requested'> {
    if (this.engine.kind !== 'unavailable') {
      await this.rebuild(progress);
      return 'rebuilt';
    }
    await this.dataSource.query(`INSERT INTO analytics_deletion (project_id, kind, key) VALUES (0, 'truncate', 'rebuild requested')`);
    return 'requested';
  }

  /** Rebuilds the copy from PostgreSQL now, reporting progress. */
  async rebuild(progress: (copied: number) => void = () => undefined): Promise<void> {
    await this.exclusive(async (source) => {
      const { last } = await this.state(source);
      await this.rebuildWith(source, (last?.batch ?? 0) + 1, progress);
    });
  }

  /** The refresh that starts after this call, shared by every caller until it starts. */
  private refresh(): Promise<void> {
    if (this.queued) return this.queued;
    const start = async () => {
      await this.running?.catch(() => undefined);
      this.queued = null;
      this.running = this.exclusive((source) => this.refreshWith(source))
        .then(() => void (this.complete = true))
        .finally(() => (this.running = null));
      return this.running;
    };
    this.queued = start();
    return this.queued;
  }

  private schedule(delayMs: number, intervalMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.refresh()
        .catch((error: Error) => this.logger.warn(`analytics copy refresh failed: ${error.message}`))
        .finally(() => this.schedule(intervalMs, intervalMs));
    }, delayMs);
    this.timer.unref();
  }

  private async exclusive<T>(work: (source: CopySource) => Promise<T>): Promise<T> {
    if (!this.source) {
      const options = ((this.dataSource.driver as PostgresDriver).master as Pool).options;
      this.source = new CopySource(options, `hogbase analytics copy ${this.config.clickhouse.database}`, this.config.analytics.copyTimeoutMs);
    }
    const source = this.source;
    try {
      return await source.locked(() => work(source));
    } catch (error) {
      // What this process remembers may be behind what a failed batch wrote: ClickHouse says next time.
      this.remembered = null;
      throw error;
    }
  }

  /**
   * The copy's state: what this process remembers when the batch number PostgreSQL keeps for the copy is
   * the one it remembers (no other process refreshed it since), otherwise read from ClickHouse.
   */
  private async state(source: CopySource): Promise<{ last: CopyState | null; committed: CopyState | null }> {
    const [row] = await source.rows<{ batch: string }>('SELECT batch::text FROM analytics_copy WHERE database = $1', [this.config.clickhouse.database]);
    if (this.remembered && row && Number(row.batch) === this.remembered.last?.batch) return this.remembered;
    this.remembered = await readCopyState(this.engine);
    return this.remembered;
  }

  /** Writes a batch's state to ClickHouse, then its number to PostgreSQL, and remembers it. */
  private async record(source: CopySource, state: CopyState): Promise<void> {
    await writeCopyState(this.engine, state);
    await source.rows(`INSERT INTO analytics_copy (database, batch) VALUES ($1, $2) ON CONFLICT (database) DO UPDATE SET batch = excluded.batch`, [
      this.config.clickhouse.database, state.batch,
    ]);
    const committed = state.status === 'committed' ? state : (this.remembered?.committed ?? null);
    this.remembered = { last: state, committed };
  }

  private async refreshWith(source: CopySource): Promise<void> {
    const { last, committed } = await this.state(source);
    // No copy yet, a copy of another version, or a rebuild that never committed (it had emptied the tables).
    const rebuildStarted = last?.status === 'started' && last.horizon === REBUILD_HORIZON;
    if (!committed || committed.copyVersion !== COPY_VERSION || rebuildStarted) return this.rebuildWith(source, (last?.batch ?? 0) + 1);
    if (last && last.status === 'started') {
      await this.undo(last.batch);
      // The batch is settled: it holds the last committed state again, and the next batch comes after it.
      await this.record(source, { ...committed, batch: last.batch, status: 'committed' });
    }
    const batch = (last?.batch ?? 0) + 1;
    const horizon = await source.beginSnapshot();
    const txs = (await source.rows<{ tx: string }>(PENDING_TXS_SQL, [committed.horizon, committed.applied])).map((r) => r.tx);
    if (txs.length === 0) return source.endSnapshot();
    const selection: TxSelection = { since: committed.horizon, txs };
    const deletions = await source.rows<Deletion>(DELETIONS_SQL, [selection.since, txs]);
    if (deletions.some((d) => d.kind === 'truncate')) {
      await source.endSnapshot();
      return this.rebuildWith(source, batch);
    }
    await this.record(source, { ...committed, batch, status: 'started' });
    await applyDeletions(this.engine, deletions, versions(batch).deletions, this.eventsTable());
    const projects = await source.rows<{ project_id: number }>(TOUCHED_PROJECTS_SQL, [selection.since, txs]);
    for (const { project_id: projectId } of projects) await this.copyProject(source, projectId, selection, batch);
    await source.endSnapshot();
    const applied = [...committed.applied, ...txs].filter((tx) => BigInt(tx) >= BigInt(horizon));
    await this.record(source, { batch, status: 'committed', copyVersion: COPY_VERSION, horizon, applied });
    if (Date.now() - this.prunedAt > PRUNE_EVERY_MS) {
      await source.rows(PRUNE_DELETIONS_SQL, [horizon]);
      this.prunedAt = Date.now();
    }
  }

  /** One project's rows of a batch (every row when `selection` is null): overrides first, then the rows. */
  private async copyProject(source: CopySource, projectId: number, selection: TxSelection | null, batch: number, progress?: (rows: number) => void): Promise<void> {
    const { upserts } = versions(batch);
    const changed = selection ? await source.rows<ChangedOwner>(CHANGED_DISTINCT_IDS_SQL, [projectId, selection.since, selection.txs]) : [];
    const overrides = changed.length > 0 ? await overridesNeeded(this.engine, projectId, changed, batch) : [];
    await this.engine.insertTsv('events', EVENT_COLUMNS, source.copyOut(eventsCopySql(projectId, selection, batch)));
    progress?.(0);
    await this.engine.insertTsv('person', PERSON_COLUMNS, source.copyOut(personsCopySql(projectId, selection, upserts)));
    await this.engine.insertTsv('person_distinct_id', DISTINCT_ID_COLUMNS, source.copyOut(distinctIdsCopySql(projectId, selection, upserts)));
    await this.engine.insertTsv('groups', GROUP_COLUMNS, source.copyOut(groupsCopySql(projectId, selection, upserts)));
    await this.engine.insertTsv('cohort_person', COHORT_PERSON_COLUMNS, source.copyOut(cohortPersonsCopySql(projectId, selection, upserts)));
    if (overrides.length > 0) {
      await this.engine.insert('person_distinct_id_overrides', overrides.map((o) => ({ team_id: projectId, distinct_id: o.distinct_id, person_id: o.person_id, is_deleted: 0, version: upserts })));
    }
  }

  /** Empties the copy and reads everything again in one snapshot. */
  private async rebuildWith(source: CopySource, batch: number, progress: (copied: number) => void = () => undefined): Promise<void> {
    this.rebuilding = { copied: 0 };
    try {
      await this.record(source, { batch, status: 'started', copyVersion: COPY_VERSION, horizon: REBUILD_HORIZON, applied: [] });
      for (const table of COPIED_TABLES) await this.engine.command(`TRUNCATE TABLE ${table === 'events' ? this.eventsTable() : table}`);
      const horizon = await source.beginSnapshot();
      // Transactions at or above the horizon that are visible now are in this read: remembered as applied.
      const applied = (await source.rows<{ tx: string }>(PENDING_TXS_SQL, [horizon, []])).map((r) => r.tx);
      const projects = await source.rows<{ id: number }>('SELECT id FROM project ORDER BY id');
      for (const { id } of projects) {
        await this.copyProject(source, id, null, batch);
        this.rebuilding.copied = await this.copiedEvents();
        progress(this.rebuilding.copied);
      }
      await source.endSnapshot();
      await this.record(source, { batch, status: 'committed', copyVersion: COPY_VERSION, horizon, applied });
      this.logger.log(`analytics copy rebuilt from PostgreSQL: ${this.rebuilding.copied} events`);
    } finally {
      this.rebuilding = null;
    }
  }

  private async copiedEvents(): Promise<number> {
    const rows = await this.engine.query<{ n: string }>({ text: 'SELECT toString(count()) AS n FROM events', params: {} });
    return Number(rows[0]?.n ?? 0);
  }

  /** Removes what a batch that never committed wrote. */
  private async undo(batch: number): Promise<void> {
    this.logger.warn(`analytics copy batch ${batch} did not commit: undoing it`);
    await this.engine.command({ text: `DELETE FROM ${this.eventsTable()} WHERE _batch >= {b:UInt64}`, params: { b: batch } });
    for (const table of COPIED_TABLES.filter((t) => t !== 'events')) {
      await this.engine.command({ text: `DELETE FROM ${table} WHERE version >= {v:UInt64}`, params: { v: versions(batch).deletions } });
    }
  }

  /** The table events are written to and deleted from (the data table, not the Distributed one, on a cluster). */
  private eventsTable(): string {
    return this.config.clickhouse.cluster ? 'sharded_events' : 'events';
  }
}

