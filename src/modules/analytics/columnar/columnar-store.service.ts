import { Inject, Injectable, Logger } from '@nestjs/common';
import { Counter, Gauge, Registry } from 'prom-client';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { MetricsService } from '../../metrics/metrics.service';
import { AnalyticsRepository } from '../analytics.repository';
import { BREAKDOWN_NULL } from '../model/insight-query';
import {
  ColumnarBudgetExceeded, Horizon, readChangedPersons, readChanges, readEverything, readHorizon, readPersonCreated, readPersonProperty,
} from './columnar-source';
import { ScanTooLarge } from './columnar-buckets';
import { EventColumns, PersonColumn } from './event-columns';
import { orderByDistinct, tailLimit } from './event-order';

/** A full load may take minutes on a large project; it runs in the background while PostgreSQL answers. */
const LOAD_TIMEOUT_MS = 30 * 60_000;
/** After a failed or refused load, how long the project is read from PostgreSQL before the next try. */
const RETRY_AFTER_MS = 5 * 60_000;

interface ProjectCopy {
  columns: EventColumns;
  /** xmin of the snapshot the copy is up to date with. */
  horizon: bigint;
  /** Transactions at or above the horizon whose event and distinct-id rows are already in the copy. */
  applied: Set<string>;
  generation: string;
  /** Person properties read so far (breakdowns), and creation times (lifecycle), kept up to date with the events. */
  properties: Map<string, PersonColumn>;
  created: number[] | null;
  /** Scans running on the copy; a refresh applies its changes only when none is (scans pause to let requests through). */
  readers: number;
  drained: Array<() => void>;
  /** Work on the copy runs one piece at a time, in order: `tail` is the last piece queued. */
  tail: Promise<unknown>;
  /** The refresh queued behind the running work, shared by every request that arrives meanwhile. */
  queued: Promise<boolean> | null;
  /** An ordering of the events is queued or running (see event-order.ts). */
  reordering: boolean;
}

type Changes = Awaited<ReturnType<typeof readChanges>> & { horizon: Horizon; persons: Awaited<ReturnType<typeof readChangedPersons>> };

/** What a scan reads: the events, and the person data it asked for. */
export interface ColumnarView {
  columns: EventColumns;
  /** Each person's value of the requested person property. */
  property: PersonColumn | null;
  /** Each person's creation time (ms), when requested. */
  created: ReadonlyArray<number | undefined> | null;
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
  private readonly answers: Counter;
  private readonly registry: Registry;
  /** Set where the analytics thread keeps the copies: this instance then keeps none. */
  private handedOver = false;

  constructor(
    private readonly repository: AnalyticsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    metrics: MetricsService,
  ) {
    this.registry = metrics.registry;
    const registers = [metrics.registry];
    this.answers = new Counter({ name: 'analytics_columnar_answers_total', help: 'Insight reads answered from the in-memory event columns', registers });
    const store = this;
    new Gauge({
      name: 'analytics_columnar_events',
      help: 'Events held in the in-memory column copies of this process',
      registers,
      collect() {
        this.set(store.heldEvents());
      },
    });
  }

  /** `read` when the columns can answer the query (`answers`, from columnar-support.ts); undefined otherwise. */
  readIf<T>(answers: boolean, projectId: number, needs: { property?: string | null; created?: boolean }, scan: (view: ColumnarView) => Promise<T>): Promise<T | undefined> {
    return answers ? this.read(projectId, needs, scan) : Promise.resolve(undefined);
  }

  /**
   * Runs `scan` over the project's copy, brought up to date first, with the person data it needs; no
   * refresh changes the copy until the scan ends. Undefined when PostgreSQL must answer.
   */
  async read<T>(projectId: number, needs: { property?: string | null; created?: boolean }, scan: (view: ColumnarView) => Promise<T>): Promise<T | undefined> {
    const columns = await this.current(projectId);
    if (!columns) return undefined;
    const property = needs.property ? await this.personProperty(projectId, columns, needs.property) : null;
    const created = needs.created ? await this.personCreated(projectId, columns) : null;
    const copy = this.copyOf(projectId, columns);
    if (copy) copy.readers++;
    try {
      return await scan({ columns, property, created });
    } catch (error) {
      if (error instanceof ScanTooLarge) return undefined;
      throw error;
    } finally {
      if (copy && --copy.readers === 0) copy.drained.splice(0).forEach((wake) => wake());
    }
  }

  /** The project's copy, up to date as of now, or null when PostgreSQL must answer. */
  private async current(projectId: number): Promise<EventColumns | null> {
    const columns = await this.upToDate(projectId);
    if (columns) this.answers.inc();
    return columns;
  }

  /** Each person's value of a person property, by the copy's person index (read once, then kept up to date). */
  private personProperty(projectId: number, columns: EventColumns, key: string): Promise<PersonColumn> {
    const read = async () => {
      const column = new PersonColumn(BREAKDOWN_NULL);
      await this.repository.inBulkSnapshot((client) => readPersonProperty(client, projectId, key, (id, value) => column.set(columns.personIndexFor(id), value)), LOAD_TIMEOUT_MS);
      return column;
    };
    return this.personData(projectId, columns, (copy) => copy.properties.get(key), read, (copy, column) => copy.properties.set(key, column));
  }

  /** Each person's creation time (ms; undefined without a person row), by the copy's person index. */
  private personCreated(projectId: number, columns: EventColumns): Promise<ReadonlyArray<number | undefined>> {
    const read = async () => {
      const created: number[] = [];
      await this.repository.inBulkSnapshot((client) => readPersonCreated(client, projectId, (id, at) => (created[columns.personIndexFor(id)] = at)), LOAD_TIMEOUT_MS);
      return created;
    };
    return this.personData(projectId, columns, (copy) => copy.created ?? undefined, read, (copy, created) => (copy.created = created));
  }

  /**
   * Person data the copy keeps, read once in the copy's order of work (so no refresh overlaps the read);
   * when a delete replaced the copy meanwhile, what is read is used once and not kept.
   */
  private personData<T>(projectId: number, columns: EventColumns, kept: (copy: ProjectCopy) => T | undefined, read: () => Promise<T>, keep: (copy: ProjectCopy, data: T) => void): Promise<T> {
    const copy = this.copyOf(projectId, columns);
    const known = copy ? kept(copy) : undefined;
    if (known !== undefined) return Promise.resolve(known);
    if (!copy) return read();
    return this.serialized(copy, async () => {
      const data = await read();
      keep(copy, data);
      return data;
    });
  }

  /**
   * The process's analytics thread keeps the copies (and reports their metrics): insights this thread still
   * answers itself (while that thread cannot run) go to PostgreSQL, so a process never holds two copies.
   */
  handOver(): void {
    this.handedOver = true;
    this.registry.removeSingleMetric('analytics_columnar_answers_total');
    this.registry.removeSingleMetric('analytics_columnar_events');
  }

  /** Events held in every copy of this process. */
  heldEvents(): number {
    let total = 0;
    for (const entry of this.entries.values()) if (entry.state === 'ready') total += entry.copy.columns.length;
    return total;
  }

  /** The copy these columns belong to; null when a delete replaced it meanwhile (what is read then is not kept). */
  private copyOf(projectId: number, columns: EventColumns): ProjectCopy | null {
    const entry = this.entries.get(projectId);
    return entry?.state === 'ready' && entry.copy.columns === columns ? entry.copy : null;
  }

  private async upToDate(projectId: number): Promise<EventColumns | null> {
    const settings = this.config.analytics.columnar;
    if (!settings.enabled || this.handedOver) return null;
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

  /** Waits up to `waitMs` for a load; a copy that arrives in time is used (after one refresh). */
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
    const budget = Math.max(this.config.analytics.columnar.maxEvents - this.heldEvents(), 0);
    try {
      const copy = await this.repository.inBulkSnapshot(async (client): Promise<ProjectCopy> => {
        const horizon = await readHorizon(client, projectId);
        const columns = new EventColumns();
        const applied = new Set<string>();
        const remember = (tx: string | null) => tx !== null && applied.add(tx);
        await readEverything(client, projectId, horizon, budget,
          (row) => { columns.append(row); remember(row.tx); },
          (row) => { columns.setOwner(row.distinctId, row.personId); remember(row.tx); });
        const generation = horizon.generation ?? '';
        return { columns, horizon: BigInt(horizon.xmin), applied, generation, properties: new Map(), created: null, readers: 0, drained: [], tail: Promise.resolve(), queued: null, reordering: false };
      }, LOAD_TIMEOUT_MS);
      copy.columns.adoptOrder(await orderByDistinct(copy.columns));
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

  /** Runs `work` after everything queued on the copy before it, so reads of changes never overlap. */
  private serialized<T>(copy: ProjectCopy, work: () => Promise<T>): Promise<T> {
    const run = copy.tail.catch(() => undefined).then(work);
    copy.tail = run;
    return run;
  }

  /**
   * Brings the copy up to date; false when it cannot be (a delete happened: a new load starts). Requests
   * arriving while other work on the copy runs share the next refresh, which starts after that work, so
   * none is answered from a snapshot older than its own arrival.
   */
  private refresh(projectId: number, copy: ProjectCopy): Promise<boolean> {
    copy.queued ??= this.serialized(copy, () => {
      copy.queued = null;
      return this.applyChanges(projectId, copy);
    });
    return copy.queued;
  }

  private async applyChanges(projectId: number, copy: ProjectCopy): Promise<boolean> {
    const keys = [...copy.properties.keys()];
    const personsKept = copy.created !== null || keys.length > 0;
    const changes = await this.repository.inSnapshot(async (client) => {
      const horizon = await readHorizon(client, projectId);
      if (horizon.generation !== copy.generation) return null;
      const since = copy.horizon.toString();
      const rows = await readChanges(client, projectId, since, [...copy.applied]);
      const persons = personsKept ? await readChangedPersons(client, projectId, since, keys) : [];
      return { horizon, ...rows, persons };
    });
    return this.whenNoScan(copy, () => this.apply(projectId, copy, changes, keys));
  }

  /** Applies what a refresh read; false when the copy was dropped (a delete happened). */
  private apply(projectId: number, copy: ProjectCopy, changes: Changes | null, keys: string[]): boolean {
    if (changes === null) {
      this.entries.delete(projectId);
      this.logger.log(`analytics copy of project ${projectId} dropped: events or persons were deleted; it is loaded again on the next insight`);
      return false;
    }
    const { columns } = copy;
    for (const row of changes.events) columns.append(row);
    for (const row of changes.owners) columns.setOwner(row.distinctId, row.personId);
    for (const person of changes.persons) {
      const index = columns.personIndexFor(person.personId);
      if (copy.created) copy.created[index] = person.created;
      keys.forEach((key, k) => copy.properties.get(key)?.set(index, person.values[k]));
    }
    this.advance(copy, changes.horizon, [...changes.events, ...changes.owners].map((row) => row.tx));
    if (!copy.reordering && columns.length - columns.orderedLength > tailLimit(columns.length)) {
      copy.reordering = true;
      // Queued after this refresh, so the request that triggered it is answered first; requests that arrive
      // meanwhile wait for it (2–3 s for 10 M events), as they wait for any refresh.
      this.serialized(copy, () => this.reorder(copy))
        .catch((error: Error) => this.logger.warn(`analytics copy of project ${projectId} could not be ordered again: ${error.message}`))
        .finally(() => (copy.reordering = false));
    }
    return true;
  }

  /** Orders every event again (appended ones included) beside the scans already running, then swaps the order in once none runs. */
  private async reorder(copy: ProjectCopy): Promise<void> {
    const ordered = await orderByDistinct(copy.columns);
    await this.whenNoScan(copy, () => copy.columns.adoptOrder(ordered));
  }

  /**
   * Runs `change` once no scan reads the copy, synchronously after the last check: scans pause on the event
   * loop and must not see the copy change under them, and none can start between the check and the change.
   */
  private async whenNoScan<T>(copy: ProjectCopy, change: () => T): Promise<T> {
    while (copy.readers > 0) await new Promise<void>((wake) => copy.drained.push(wake));
    return change();
  }

  private advance(copy: ProjectCopy, horizon: Horizon, txs: Array<string | null>): void {
    for (const tx of txs) if (tx !== null) copy.applied.add(tx);
    copy.horizon = BigInt(horizon.xmin);
    // Transactions below the new horizon are never asked for again.
    for (const tx of copy.applied) if (BigInt(tx) < copy.horizon) copy.applied.delete(tx);
  }
}
