import { Injectable } from '@nestjs/common';
import { DateTime } from 'luxon';
import { ActionsService } from '../actions/actions.service';
import type { ProjectEntity } from '../projects/project.entity';
import { actionMatcher } from '../actions/action-matcher';
import { AnalyticsRepository } from './analytics.repository';
import { FunnelCorrelationService } from './funnel-correlation.service';
import { FunnelResult, FunnelsService } from './funnels.service';
import { InsightActorsService } from './insight-actors.service';
import { Cached, InsightCache } from './insight-cache';
import type { CorrelationResult } from './model/funnel-correlation';
import { nextInterval } from './model/insight-dates';
import type {
  ActorsSelection, FunnelActorsSelection, InsightKind, InsightQuery, PathActorsSelection, RetentionActorsSelection,
} from './model/insight-query';
import type { ActorPage, InsightResult } from './model/insight-result';
import type { PathEdge } from './model/path-edges';
import { FilterInput, propertyFilterValue, textValue } from './parsers/filter-values';
import type { CorrelationActorsSelection, CorrelationOptions } from './parsers/funnel-correlation.parser';
import { parseFunnelFilter } from './parsers/funnel-filter.parser';
import { checkInsight, usesCohorts } from './parsers/insight-checks';
import { ParseContext, parseLegacyFilter } from './parsers/legacy-filter.parser';
import { parsePathFilter } from './parsers/path-filter.parser';
import { parseRetentionFilter, RetentionDoor } from './parsers/retention-filter.parser';
import { PathsService } from './paths.service';
import type { SerializedActor } from './presenters/actor.presenter';
import { RetentionCohortLine, RetentionLine, RetentionService } from './retention.service';
import { AnalyticsCopy } from './copy/analytics-copy.service';
import type { SqlContext } from './sql/event-scope.sql';
import { StickinessLifecycleService } from './stickiness-lifecycle.service';
import { TrendsService } from './trends.service';

/** A computed insight with the query it answers (presenters need both). */
export interface ComputedInsight {
  query: InsightQuery;
  result: Cached<InsightResult>;
}

export interface ActorsAnswer {
  page: ActorPage;
  people: SerializedActor[];
}

/**
 * The analytics use cases behind every door: parse context, SQL context, cache, and the per-kind
 * computation; persons of one data point. Doors (legacy filters, query nodes) parse; this computes.
 */
@Injectable()
export class InsightsService {
  constructor(
    private readonly repository: AnalyticsRepository,
    private readonly trends: TrendsService,
    private readonly stickinessLifecycle: StickinessLifecycleService,
    private readonly actors: InsightActorsService,
    private readonly funnels: FunnelsService,
    private readonly correlation: FunnelCorrelationService,
    private readonly retention: RetentionService,
    private readonly paths: PathsService,
    private readonly cache: InsightCache,
    private readonly copy: AnalyticsCopy,
    private readonly actionDefinitions: ActionsService,
  ) {}

  /** What parsing needs of the project; the earliest event is read only for `date_from=all`. */
  async parseContext(project: ProjectEntity, dateFrom: string | null): Promise<ParseContext> {
    const [earliest, actions] = await Promise.all([
      dateFrom === 'all' ? this.copy.current().then(() => this.repository.earliestEventTime(project.id)) : null,
      this.actionDefinitions.liveDefinitions(project.id),
    ]);
    return { timezone: project.timezone, weekStartDay: 0, now: DateTime.now(), earliest: () => earliest, actions: new Map(actions.map((a) => [a.id, actionMatcher(a)])) };
  }

  /** Parses a legacy filter (query string and/or body) for this project. */
  async parseLegacy(project: ProjectEntity, input: FilterInput, kind?: InsightKind): Promise<InsightQuery> {
    const context = await this.parseContext(project, textValue(input, 'date_from'));
    return checkInsight(parseLegacyFilter(input, context, kind));
  }

  async parseFunnel(project: ProjectEntity, input: FilterInput): Promise<InsightQuery> {
    const context = await this.parseContext(project, textValue(input, 'date_from'));
    return parseFunnelFilter(input, context);
  }

  async parsePaths(project: ProjectEntity, input: FilterInput): Promise<InsightQuery> {
    return parsePathFilter(input, await this.parseContext(project, textValue(input, 'date_from')), project.pathCleaningFilters ?? []);
  }

  async computePaths(project: ProjectEntity, query: InsightQuery, refresh: boolean): Promise<Cached<PathEdge[]>> {
    return this.cache.through(project.id, query, refresh, async () => this.paths.edges(query, (await this.sqlContext(project, query)).sql));
  }

  /** The persons (or groups) whose paths hold the selected keys, serialized. */
  pathActorsOf(project: ProjectEntity, query: InsightQuery, selection: PathActorsSelection): Promise<ActorsAnswer> {
    return this.serializedPage(project, query, (sql) => this.paths.actors(query, selection, sql));
  }

  async parseRetention(project: ProjectEntity, input: FilterInput, door: RetentionDoor): Promise<InsightQuery> {
    return parseRetentionFilter(input, await this.parseContext(project, null), door);
  }

  async computeRetention(project: ProjectEntity, query: InsightQuery, refresh: boolean): Promise<Cached<RetentionLine[]>> {
    return this.cache.through(project.id, query, refresh, async () => this.retention.table(query, (await this.sqlContext(project, query)).sql));
  }

  /** The retention table by cohort and line (the query API's shape). */
  async computeRetentionByCohort(project: ProjectEntity, query: InsightQuery, refresh: boolean): Promise<Cached<RetentionCohortLine[]>> {
    return this.cache.through(project.id, { byCohort: query }, refresh, async () => this.retention.byCohort(query, (await this.sqlContext(project, query)).sql));
  }

  /** The persons of one retention cohort (or line), serialized with the actor id, and their appearances. */
  async retentionActorsOf(project: ProjectEntity, query: InsightQuery, selection: RetentionActorsSelection) {
    const { sql } = await this.sqlContext(project, query);
    const { page, appearances } = await this.retention.actors(query, selection, sql);
    const people: Array<[string, SerializedActor]> = await this.actors.serializeById(project.id, page, false);
    return { page, people, appearances };
  }

  async computeFunnel(project: ProjectEntity, query: InsightQuery, refresh: boolean): Promise<Cached<FunnelResult>> {
    return this.cache.through(project.id, query, refresh, async () => {
      const { sql, cohortNames } = await this.sqlContext(project, query);
      return this.funnels.compute(query, sql, cohortNames);
    });
  }

  async computeCorrelation(project: ProjectEntity, query: InsightQuery, options: CorrelationOptions, refresh: boolean): Promise<Cached<CorrelationResult>> {
    return this.cache.through(project.id, { correlation: options, query }, refresh, async () => this.correlation.correlate(query, options, (await this.sqlContext(project, query)).sql));
  }

  /** The persons (or groups) behind one correlation row, serialized. */
  correlationActorsOf(project: ProjectEntity, query: InsightQuery, selection: CorrelationActorsSelection): Promise<ActorsAnswer> {
    return this.serializedPage(project, query, (sql) => this.correlation.actors(query, selection, sql));
  }

  /** The persons (or groups) of one funnel step, serialized. */
  funnelActorsOf(project: ProjectEntity, query: InsightQuery, selection: FunnelActorsSelection): Promise<ActorsAnswer> {
    return this.serializedPage(project, query, (sql) => this.funnels.actors(query, selection, sql));
  }

  /** One page of actors chosen in SQL context, then serialized newest first (funnels, correlation, paths). */
  private async serializedPage(project: ProjectEntity, query: InsightQuery, pageOf: (sql: SqlContext) => Promise<ActorPage>): Promise<ActorsAnswer> {
    const page = await pageOf((await this.sqlContext(project, query)).sql);
    return { page, people: await this.actors.serialize(project.id, page, false) };
  }

  async compute(project: ProjectEntity, query: InsightQuery, refresh: boolean): Promise<ComputedInsight> {
    const result = await this.cache.through(project.id, query, refresh, async () => {
      const { sql, cohortNames } = await this.sqlContext(project, query);
      if (query.series.length === 0) return { series: [], hasMore: false };
      if (query.kind === 'stickiness') return this.stickinessLifecycle.stickiness(query, sql);
      if (query.kind === 'lifecycle') return this.stickinessLifecycle.lifecycle(query, sql);
      return this.trends.compute(query, sql, cohortNames);
    });
    return { query, result };
  }

  /** The persons (or groups) behind one point, serialized; trends persons carry their value. */
  async actorsOf(project: ProjectEntity, query: InsightQuery, selection: ActorsSelection): Promise<ActorsAnswer> {
    const focused = selection.lifecycle ? this.lifecyclePeriod(query, selection.lifecycle.target) : query;
    const { sql } = await this.sqlContext(project, focused);
    const page = await this.actors.page(focused, selection, sql);
    const people = await this.actors.serialize(project.id, page, query.kind === 'trends');
    return { page, people };
  }

  /** Lifecycle persons need only the target period (and the one before it, which the SQL reads). */
  private lifecyclePeriod(query: InsightQuery, target: DateTime): InsightQuery {
    return { ...query, range: { ...query.range, from: target, to: nextInterval(target, query.interval).minus({ milliseconds: 1 }) } };
  }

  private async sqlContext(project: ProjectEntity, query: InsightQuery): Promise<{ sql: SqlContext; cohortNames: Map<number, string> }> {
    // Every write committed before the request is in the answer: the copy catches up first.
    await this.copy.current();
    const testAccountFilters = query.filterTestAccounts ? propertyFilterValue(project.testAccountFilters, 'test_account_filters') : null;
    const [cohorts, groupTypes, hasOverrides] = await Promise.all([
      usesCohorts(query, testAccountFilters) ? this.repository.liveCohorts(project.id) : Promise.resolve(new Map()),
      this.repository.groupTypes(project.id),
      this.repository.hasOverrides(project.id),
    ]);
    const cohortNames = new Map([...cohorts].map(([id, c]) => [id, c.name as string]));
    return { sql: { projectId: project.id, cohorts, groupTypes, testAccountFilters, now: new Date(), hasOverrides }, cohortNames };
  }
}
