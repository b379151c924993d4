import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error';
import { PersonQueriesService } from '../persons/person-queries.service';
import { ActorRow, AnalyticsRepository } from './analytics.repository';
import { activeUserDays, ActorsSelection, AGGREGATE_DISPLAYS, DateRange, InsightQuery, isOtherValue, Series } from './model/insight-query';
import type { ActorPage } from './model/insight-result';
import { serializedGroup, serializedPerson, SerializedActor } from './presenters/actor.presenter';
import { searchConditions, trendActorsSql } from './sql/actors.sql';
import type { SqlContext } from './sql/event-scope.sql';
import { lifecycleActorsSql, stickinessActorsSql } from './sql/stickiness-lifecycle.sql';
import { actorKindOf, BreakdownSlice } from './sql/trends.sql';
import { TrendsService } from './trends.service';

/** The actors behind one data point of a trend, stickiness or lifecycle insight, one page at a time. */
@Injectable()
export class InsightActorsService {
  constructor(
    private readonly repository: AnalyticsRepository,
    private readonly persons: PersonQueriesService,
    private readonly trends: TrendsService,
  ) {}

  async page(query: InsightQuery, selection: ActorsSelection, ctx: SqlContext): Promise<ActorPage> {
    const series = query.series[selection.seriesIndex];
    if (!series) throw ApiError.validation('An entity must be provided to pick the series: entity_id (and entity_math or entity_order).', 'entity_id');
    const kind = actorKindOf(query, series);
    const rows = await this.sqlPage(query, series, selection, ctx);
    return {
      actors: rows.map((row) => ({ id: row.actor, value: row.value })),
      full: rows.length >= selection.limit,
      kind: kind.kind,
      groupTypeIndex: kind.kind === 'group' ? kind.groupTypeIndex : null,
    };
  }

  private async sqlPage(query: InsightQuery, series: Series, selection: ActorsSelection, ctx: SqlContext): Promise<ActorRow[]> {
    const page = { limit: selection.limit, offset: selection.offset };
    const search = searchConditions(selection.search, actorKindOf(query, series), ctx);
    if (query.kind === 'stickiness') {
      return this.repository.actors(stickinessActorsSql({ ...query, range: selection.range }, series, selection.stickinessDays ?? 1, search, ctx, page));
    }
    if (query.kind === 'lifecycle' && selection.lifecycle) {
      return this.repository.actors(lifecycleActorsSql(query, series, selection.lifecycle.status, selection.lifecycle.target, search, ctx, page));
    }
    const range = activeWindow(query, series, selection.range);
    return this.repository.actors(trendActorsSql(query, series, range, await this.sliceOf(query, selection, ctx), selection.search, ctx, page));
  }

  /** The events a breakdown value selects: one value's, a cohort's, or (the Other line) every value past the ranked ones. */
  private async sliceOf(query: InsightQuery, selection: ActorsSelection, ctx: SqlContext): Promise<BreakdownSlice> {
    const value = selection.breakdownValue;
    const breakdown = query.breakdown;
    if (value === undefined || !breakdown) return null;
    if (breakdown.kind === 'cohort') return { kind: 'cohort', cohort: value === 'all' ? 'all' : Number(value) };
    if (isOtherValue(value)) return { kind: 'other', ranked: selection.otherThan ?? (await this.trends.rankedValues(query, breakdown, ctx)).ranked };
    return { kind: 'point', values: Array.isArray(value) ? value : [String(value)] };
  }

  /** The page's actors as PostHog serializes them; actors deleted since are left out (`missing_persons`). */
  async serialize(projectId: number, page: ActorPage, withValues: boolean): Promise<SerializedActor[]> {
    const actors = (await this.serializeById(projectId, page, withValues)).map(([, actor]) => actor);
    // Trends list the largest values first; the sort is stable, so ties keep newest-first order.
    if (withValues) actors.sort((a, b) => (b.value_at_data_point ?? 0) - (a.value_at_data_point ?? 0));
    return actors;
  }

  /** The same, each with the actor id the SQL gave (person id or group key), newest first. */
  async serializeById(projectId: number, page: ActorPage, withValues: boolean): Promise<Array<[string, SerializedActor]>> {
    const values = new Map(page.actors.map((a) => [a.id, a.value]));
    if (page.kind === 'group') {
      const groups = await this.repository.groups(projectId, page.groupTypeIndex ?? 0, page.actors.map((a) => a.id));
      return groups.map((g) => [g.groupKey, serializedGroup(g, withValues ? (values.get(g.groupKey) ?? null) : undefined)]);
    }
    const views = await this.persons.viewsByIds(projectId, page.actors.map((a) => Number(a.id)));
    return views.map((v) => [String(v.id), serializedPerson(v, withValues ? (values.get(String(v.id)) ?? null) : undefined)]);
  }
}

/**
 * Weekly/monthly active users of a point: the 7 or 30 days ending on the point's own day (the first of its week or
 * month), as its number counts them; of one number over the whole range, those ending on its last day.
 */
function activeWindow(query: InsightQuery, series: Series, range: DateRange): DateRange {
  const days = activeUserDays(series.math, query.interval);
  if (!days) return range;
  if (AGGREGATE_DISPLAYS.has(query.display)) return { ...range, from: range.to.startOf('day').minus({ days: days - 1 }) };
  const day = range.from.startOf('day');
  return { ...range, from: day.minus({ days: days - 1 }), to: day.endOf('day') };
}
