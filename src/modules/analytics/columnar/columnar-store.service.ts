import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { AnalyticsRepository } from '../analytics.repository';
import { BREAKDOWN_NULL } from '../model/insight-query';
import { ColumnarBudgetExceeded, EventRow, Horizon, OwnerRow, readChanges, readEverything, readHorizon, readPersonCreated, readPersonValues } from './columnar-source';
import { EventColumns } from './event-columns';

/** A full load may take minutes on a large project; it runs in the background while PostgreSQL answers. */
const LOAD_TIMEOUT_MS = 30 * 60_000;
/** After a failed or refused load, how long the project is read from PostgreSQL before the next try. */
const RETRY_AFTER_MS = 5 * 60_000;

interface ProjectCopy {
  columns: EventColumns;
  /** xmin of the snapshot the copy is up to date with. */
  horizon: bigint;
  /** Transactions at or above the horizon whose rows are already in the copy. */
  applied: Set<string>;
  generation: string;
  /** The refresh that runs now, and the one queued after it (shared by every request that arrives meanwhile). */
  running: Promise<unknown> | null;
  queued: Promise<boolean> | null;
}

type Entry = { state: 'loading'; done: Promise<void> } | { state: 'ready'; copy: ProjectCopy } | { state: 'unavailable'; until: number };

/**
 * Each project's events and distinct-id owners as in-memory columns, loaded on the project's first
 * insight and brought up to date before every later one with only the rows written since (see
 * columnar-source.ts), so a scan sees exactly what a PostgreSQL query would. Deletes (which a copy cannot
 * follow) raise the project's deletion generation and the copy is loaded again. While a copy loads, or
 * when it would not fit ANALYTICS_COLUMNAR_MAX_EVENTS, `current` answers null and PostgreSQL serves.
 */
@Injectable()
export class ColumnarStore {
  private readonly logger = new Logger(ColumnarStore.name);
  private readonly entries = new Map<number, Entry>();
  /** Insights (and persons pages) the columns answered since start. */
  answered = 0;

  constructor(
    private readonly repository: AnalyticsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The project's copy, up to date as of now, or null when PostgreSQL must answer. */
  async current(projectId: number): Promise<EventColumns | null> {
    const columns = await this.upToDate(projectId);
    if (columns) this.answered++;
    return columns;
  }

  private async upToDate(projectId: number): Promise<EventColumns | null> {
    const settings = this.config.analytics.columnar;
    if (!settings.enabled) return null;
    const entry = this.entries.get(projectId);
    if (entry === undefined || (entry.state === 'unavailable' && Date.now() >= entry.until)) {
      const done = this.load(projectId);
      this.entries.set(projectId, { state: 'loading', done });
      return this.afterLoad(projectId, done, settings.waitMs);
    }
    if (entry.state === 'loading') return this.afterLoad(projectId, entry.done, settings.waitMs);
    if (entry.state === 'unavailable') return null;
    if (await this.refresh(projectId, entry.copy)) return entry.copy.columns;
    // A delete dropped the copy: the next load starts now and may still answer this request.
    return this.entries.has(projectId) ? null : this.upToDate(projectId);
  }

  /** Each person's value of a person property (PostHog's null marker when absent), by the copy's person index. */
  personValues(projectId: number, columns: EventColumns, key: string): Promise<Array<string | undefined>> {
    return this.repository.inSnapshot((client) => readPersonValues(client, projectId, key, BREAKDOWN_NULL, (id) => columns.personIndexOf(id)));
  }

  /** Each person's creation time (ms; NaN without a person row), by the copy's person index. */
  personCreated(projectId: number, columns: EventColumns): Promise<Float64Array> {
    return this.repository.inSnapshot((client) => readPersonCreated(client, projectId, columns.personCount, (id) => columns.personIndexOf(id)));
  }

  /** Events held in every copy of this process. */
  heldEvents(): number {
    let total = 0;
    for (const entry of this.entries.values()) if (entry.state === 'ready') total += entry.copy.columns.length;
    return total;
  }

  /** Waits up to `waitMs` for a load; a copy that arrives in time is used (it is as fresh as its snapshot plus one refresh). */
  private async afterLoad(projectId: number, done: Promise<void>, waitMs: number): Promise<EventColumns | null> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), waitMs)));
    const outcome = await Promise.race([done.then(() => 'loaded' as const), timeout]);
    clearTimeout(timer);
    const entry = this.entries.get(projectId);
    if (outcome === 'late' || entry?.state !== 'ready') return null;
    return (await this.refresh(projectId, entry.copy)) ? entry.copy.columns : null;
  }

  private async load(projectId: number): Promise<void> {
    const started = Date.now();
    const budget = this.config.analytics.columnar.maxEvents - this.heldEvents();
    try {
      const copy = await this.repository.inSnapshot(async (client) => {
        const horizon = await readHorizon(client, projectId);
        const columns = new EventColumns();
        const applied = new Set<string>();
        const remember = (tx: string | null) => tx !== null && applied.add(tx);
        await readEverything(client, projectId, horizon, LOAD_TIMEOUT_MS, Math.max(budget, 0),
          (row) => { columns.append(row); remember(row.tx); },
          (row) => { columns.setOwner(row.distinctId, row.personId); remember(row.tx); });
        return { columns, horizon: BigInt(horizon.xmin), applied, generation: horizon.generation ?? '', running: null, queued: null };
      }, LOAD_TIMEOUT_MS);
      this.entries.set(projectId, { state: 'ready', copy });
      this.logger.log(`analytics copy of project ${projectId} loaded: ${copy.columns.length} events, ${copy.columns.distinctIds.size} distinct ids in ${Date.now() - started} ms`);
    } catch (error) {
      this.entries.set(projectId, { state: 'unavailable', until: Date.now() + RETRY_AFTER_MS });
      if (error instanceof ColumnarBudgetExceeded) {
        this.logger.log(`analytics copy of project ${projectId} not kept: it has ${error.message}, over what ANALYTICS_COLUMNAR_MAX_EVENTS leaves; PostgreSQL answers its insights`);
      } else {
        this.logger.warn(`analytics copy of project ${projectId} failed to load; PostgreSQL answers its insights: ${(error as Error).message}`);
      }
    }
  }

  /**
   * Brings the copy up to date; false when it cannot be (a delete happened: a new load starts). Requests
   * arriving while a refresh runs share the next one, which starts after it, so none is answered from a
   * snapshot older than its own arrival.
   */
  private refresh(projectId: number, copy: ProjectCopy): Promise<boolean> {
    if (copy.queued) return copy.queued;
    const next = (async () => {
      await copy.running?.catch(() => undefined);
      copy.queued = null;
      const run = this.applyChanges(projectId, copy);
      copy.running = run;
      try {
        return await run;
      } finally {
        copy.running = null;
      }
    })();
    copy.queued = next;
    return next;
  }

  private async applyChanges(projectId: number, copy: ProjectCopy): Promise<boolean> {
    const changes = await this.repository.inSnapshot(async (client) => {
      const horizon = await readHorizon(client, projectId);
      if (horizon.generation !== copy.generation) return { horizon, rows: null };
      return { horizon, rows: await readChanges(client, projectId, copy.horizon.toString(), [...copy.applied], horizon) };
    });
    if (changes.rows === null) {
      this.entries.delete(projectId);
      this.logger.log(`analytics copy of project ${projectId} dropped: events or persons were deleted; it is loaded again on the next insight`);
      return false;
    }
    this.apply(copy, changes.horizon, changes.rows.events, changes.rows.owners);
    return true;
  }

  private apply(copy: ProjectCopy, horizon: Horizon, events: EventRow[], owners: OwnerRow[]): void {
    for (const row of events) {
      copy.columns.append(row);
      if (row.tx !== null) copy.applied.add(row.tx);
    }
    for (const row of owners) {
      copy.columns.setOwner(row.distinctId, row.personId);
      if (row.tx !== null) copy.applied.add(row.tx);
    }
    copy.horizon = BigInt(horizon.xmin);
    // Transactions below the new horizon are never asked for again.
    for (const tx of copy.applied) if (BigInt(tx) < copy.horizon) copy.applied.delete(tx);
  }
}
