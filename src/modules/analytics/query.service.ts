import { Injectable } from '@nestjs/common';
import { DateTime } from 'luxon';
import { ApiError } from '../../common/errors/api-error';
import { isJsonObject } from '../../common/json/json-object';
import type { ProjectEntity } from '../projects/project.entity';
import { InsightsService } from './insights.service';
import { bucketStarts, nextInterval, previousRange } from './model/insight-dates';
import { ActorsSelection, AGGREGATE_DISPLAYS, InsightQuery, LIFECYCLE_STATUSES, LifecycleStatus } from './model/insight-query';
import { periodStart } from './parsers/actors-request.parser';
import { funnelActorsSelection } from './parsers/funnel-filter.parser';
import { legacyFunnelResult } from './presenters/funnel.presenter';
import { FilterInput } from './parsers/filter-values';
import { correlationActorsSelection, correlationOptions } from './parsers/funnel-correlation.parser';
import { correlationActorsInput, correlationNode, nodeToFilter, withNodeNames } from './parsers/query-node.parser';
import { correlationResult } from './presenters/correlation.presenter';
import { pathActorsSelection } from './parsers/path-filter.parser';
import { cachedEnvelope } from './presenters/actors-page.presenter';
import { pathEdges } from './presenters/path.presenter';
import { retentionPersonsRows, retentionQueryRows } from './presenters/retention.presenter';
import { actorColumns, actorOptions, actorRows, queryResult } from './presenters/query.presenter';

type Json = Record<string, unknown>;
const MAX_ACTORS_LIMIT = 1000;

/** `POST /query/`: the query API's insight and actors nodes, answered by the same engine as the legacy routes. */
@Injectable()
export class QueryService {
  constructor(private readonly insights: InsightsService) {}

  async run(project: ProjectEntity, body: unknown) {
    if (!isJsonObject(body) || !isJsonObject(body.query)) throw ApiError.validation('The body must be {"query": {"kind": …}}.', 'query');
    const node = body.query;
    const refresh = body.refresh === true || (typeof body.refresh === 'string' && body.refresh.startsWith('force'));
    if (node.kind === 'ActorsQuery') return this.actors(project, node);
    if (node.kind === 'InsightActorsQuery') return this.actors(project, { kind: 'ActorsQuery', source: node });
    if (node.kind === 'InsightActorsQueryOptions') return this.options(project, this.insightActorsSource(node));
    if (node.kind === 'FunnelCorrelationQuery') return this.correlation(project, node, refresh);
    const query = await this.insight(project, node);
    if (query.kind === 'paths') {
      const edges = await this.insights.computePaths(project, query, refresh);
      return { results: pathEdges(edges.value), ...cachedEnvelope(project, edges) };
    }
    if (query.kind === 'retention') {
      const table = await this.insights.computeRetentionByCohort(project, query, refresh);
      return { results: retentionQueryRows(query, table.value), ...cachedEnvelope(project, table) };
    }
    if (query.kind === 'funnels') {
      const funnel = await this.insights.computeFunnel(project, query, refresh);
      return { results: legacyFunnelResult(query, funnel.value, null), ...cachedEnvelope(project, funnel) };
    }
    const { result } = await this.insights.compute(project, query, refresh);
    return { ...queryResult(query, result.value), ...cachedEnvelope(project, result) };
  }

  private async correlation(project: ProjectEntity, node: Json, refresh: boolean) {
    const { funnel, input } = correlationNode(node);
    const query = await this.insight(project, funnel);
    const options = correlationOptions(input);
    const result = await this.insights.computeCorrelation(project, query, options, refresh);
    return { results: correlationResult(query, result.value, options, null), ...cachedEnvelope(project, result) };
  }

  /** Parses an insight node (TrendsQuery, …) as running it would, so a saved query that could not run is refused when saved. */
  async checkInsight(project: ProjectEntity, node: Json): Promise<void> {
    await this.insight(project, node);
  }

  private async insight(project: ProjectEntity, node: Json): Promise<InsightQuery> {
    const { kind, input } = withNodeNames(() => nodeToFilter(node));
    if (kind === 'funnels') return withNodeNames(() => this.insights.parseFunnel(project, input as FilterInput));
    if (kind === 'retention') return this.insights.parseRetention(project, input as FilterInput, 'query');
    if (kind === 'paths') return this.insights.parsePaths(project, input as FilterInput);
    return withNodeNames(() => this.insights.parseLegacy(project, input as FilterInput, kind));
  }

  private insightActorsSource(node: Json): Json {
    const source = node.source;
    if (isJsonObject(source) && ['FunnelsActorsQuery', 'FunnelCorrelationActorsQuery'].includes(String(source.kind)) && isJsonObject(source.source)) return source;
    if (!isJsonObject(source) || source.kind !== 'InsightActorsQuery' || !isJsonObject(source.source)) {
      throw ApiError.validation('source must be an InsightActorsQuery over a TrendsQuery, StickinessQuery or LifecycleQuery, a FunnelsActorsQuery over a FunnelsQuery, or a FunnelCorrelationActorsQuery.', 'source');
    }
    return source;
  }

  private async actors(project: ProjectEntity, node: Json) {
    const source = this.insightActorsSource(node);
    const correlation = source.kind === 'FunnelCorrelationActorsQuery';
    const query = await this.insight(project, correlation ? correlationNode(source.source as Json).funnel : (source.source as Json));
    const limit = integerField(node, 'limit', 100, 1, MAX_ACTORS_LIMIT);
    const offset = integerField(node, 'offset', 0, 0, 10_000_000);
    const search = typeof node.search === 'string' && node.search !== '' ? node.search : undefined;
    if (query.kind === 'retention') return this.retentionActors(project, query, source, node.select, limit, offset);
    const columns = actorColumns(node.select, query.kind);
    const { page, people } = await this.actorsPage(project, query, source, { limit: limit + 1, offset, search });
    const hasMore = page.actors.length > limit;
    return {
      results: actorRows(people.slice(0, limit), columns),
      columns,
      types: columns.map(() => 'String'),
      hogql: '',
      hasMore,
      limit,
      offset,
      missing_actors_count: Math.min(page.actors.length, limit) - Math.min(people.length, limit),
    };
  }

  /** A retention cohort's actors (`interval`, or `breakdown` for a line), with their appearances. */
  private async retentionActors(project: ProjectEntity, query: InsightQuery, source: Json, select: unknown, limit: number, offset: number) {
    const columns = select === undefined || select === null ? ['actor', 'appearances'] : actorColumns(select, query.kind);
    const cohort = integerField(source, 'interval', 0, 0, (query.retention?.totalIntervals ?? 1) - 1);
    const selection = query.breakdown && source.breakdown !== undefined && source.breakdown !== null
      ? { breakdownValue: String(source.breakdown), limit: limit + 1, offset }
      : { cohort, limit: limit + 1, offset };
    const { page, people, appearances } = await this.insights.retentionActorsOf(project, query, selection);
    const rows = retentionPersonsRows(people.slice(0, limit), appearances);
    return {
      results: rows.map((row) => columns.map((column) => (column === 'appearances' ? row.appearances : actorRows([row.person], [column])[0][0]))),
      columns,
      types: columns.map(() => 'String'),
      hogql: '',
      hasMore: page.actors.length > limit,
      limit,
      offset,
      missing_actors_count: Math.min(page.actors.length, limit) - Math.min(people.length, limit),
    };
  }

  private actorsPage(project: ProjectEntity, query: InsightQuery, source: Json, page: { limit: number; offset: number; search?: string }) {
    if (source.kind === 'FunnelCorrelationActorsQuery') {
      return this.insights.correlationActorsOf(project, query, { ...correlationActorsSelection(correlationActorsInput(source)), limit: page.limit, offset: page.offset });
    }
    if (query.kind === 'paths') {
      const keys = nodeToFilter(source.source as Json).input;
      return this.insights.pathActorsOf(project, query, { ...pathActorsSelection(keys), limit: page.limit, offset: page.offset });
    }
    if (query.kind === 'funnels') {
      if (source.kind !== 'FunnelsActorsQuery') throw ApiError.validation('The actors of a funnel come from a FunnelsActorsQuery source.', 'source');
      const input = {
        funnel_step: source.funnelStep ?? undefined, funnel_custom_steps: source.funnelCustomSteps ?? undefined, funnel_step_breakdown: source.funnelStepBreakdown ?? undefined,
        entrance_period_start: source.funnelTrendsEntrancePeriodStart ?? undefined, drop_off: source.funnelTrendsDropOff === true,
      };
      return this.insights.funnelActorsOf(project, query, { ...funnelActorsSelection(query, input, DateTime.now()), ...page });
    }
    if (source.kind === 'FunnelsActorsQuery') throw ApiError.validation('A FunnelsActorsQuery lists the actors of a FunnelsQuery.', 'source');
    const { focused, selection } = this.selection(query, source, page);
    return this.insights.actorsOf(project, focused, selection);
  }

  /** InsightActorsQuery's `series`, `day`, `status`, `breakdown` and `compare` as a selection of the engine. */
  private selection(query: InsightQuery, source: Json, page: { limit: number; offset: number; search?: string }) {
    const seriesIndex = integerField(source, 'series', 0, 0, Math.max(0, query.series.length - 1));
    const series = query.series[seriesIndex];
    if (!series) throw ApiError.validation('The insight has no series to list actors of.', 'series');
    const focused: InsightQuery = { ...query, series: [{ ...series, index: 0 }] };
    const range = source.compare === 'previous' ? previousRange(query.range) : query.range;
    const base: ActorsSelection = { seriesIndex: 0, range, ...page };
    if (query.kind === 'stickiness') return { focused, selection: { ...base, stickinessDays: integerField(source, 'day', 1, 1, 10_000) } };
    if (query.kind === 'lifecycle') {
      const status = source.status;
      if (typeof status !== 'string' || !(LIFECYCLE_STATUSES as readonly string[]).includes(status)) {
        throw ApiError.validation(`status must be one of ${LIFECYCLE_STATUSES.join(', ')}.`, 'status');
      }
      const target = this.dayStart(query, source.day);
      return { focused, selection: { ...base, lifecycle: { status: status as LifecycleStatus, target } } };
    }
    const breakdownValue = source.breakdown === undefined || source.breakdown === null ? undefined : (source.breakdown as ActorsSelection['breakdownValue']);
    if (AGGREGATE_DISPLAYS.has(query.display) || source.day === undefined || source.day === null) return { focused, selection: { ...base, breakdownValue } };
    const start = this.dayStart(query, source.day);
    const end = nextInterval(start, query.interval).minus({ milliseconds: 1 });
    const pointRange = { ...range, from: start < range.from ? range.from : start, to: end > range.to ? range.to : end };
    return { focused, selection: { ...base, range: pointRange, breakdownValue } };
  }

  private dayStart(query: InsightQuery, day: unknown): DateTime {
    if (typeof day !== 'string' || day === '') throw ApiError.validation('day must name the period: its start date (e.g. 2024-01-31).', 'day');
    return periodStart(day, 'day', query, DateTime.now());
  }

  private async options(project: ProjectEntity, source: Json) {
    const refusal = ApiError.validation('InsightActorsQueryOptions lists the options of an InsightActorsQuery over a trends, stickiness or lifecycle query.', 'source');
    if (source.kind !== 'InsightActorsQuery') throw refusal;
    const query = await this.insight(project, source.source as Json);
    if (!['trends', 'stickiness', 'lifecycle'].includes(query.kind)) throw refusal;
    const { result } = await this.insights.compute(project, query, false);
    return actorOptions(query, result.value, bucketStarts(query.range, query.interval, query.weekStartDay));
  }
}

function integerField(node: Json, key: string, fallback: number, min: number, max: number): number {
  const raw = node[key];
  if (raw === undefined || raw === null) return fallback;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < min || raw > max) throw ApiError.validation(`${key} must be an integer from ${min} to ${max}.`, key);
  return raw;
}
