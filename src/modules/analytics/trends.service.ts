import { Injectable } from '@nestjs/common';
import type { DateTime } from 'luxon';
import { AnalyticsRepository, PointRow } from './analytics.repository';
import { evaluateFormula, parseFormula } from './model/formula';
import { histogramBins } from './model/histogram-bins';
import { bucketKey, bucketStarts, previousRange } from './model/insight-dates';
import {
  activeUserDays, AGGREGATE_DISPLAYS, Breakdown, breakdownLabel, CountPerActorMath, DateRange, FirstTimeMath, FormulaLine, InsightQuery, isCountPerActor, isFirstTime, otherValue, PROPERTY_MATHS, Series,
} from './model/insight-query';
import type { BreakdownValue, InsightResult, SeriesResult } from './model/insight-result';
import type { SqlContext } from './sql/event-scope.sql';
import {
  activeActorsSql, ActiveWindow, BreakdownSlice, countPerActorPointsSql, firstSeenPointsSql, firstTimePointsSql, histogramEdgesSql, rankedPointsSql, topBreakdownValuesSql,
  trendPointsSql,
} from './sql/trends.sql';

/** One breakdown slice as queried (`slice`) and as shown (value, label, the row key it comes back under). */
interface SliceView {
  slice: BreakdownSlice;
  values: Array<{ key: string | null; value: BreakdownValue | null; label: string | null }>;
}

/** The slices of a query and, when the ranking read them too, the points of its page of values over the query's range. */
interface Slices {
  slices: SliceView[];
  hasMore: boolean;
  pagePoints: PointRow[] | null;
}

/** The breakdown text a row carries, as shown: several properties come back as a JSON list. */
function shownValue(key: string, multi: boolean): string | string[] {
  return multi ? (JSON.parse(key) as string[]) : key;
}

/**
 * Trends: every series' points (per breakdown value, per compared period), then the formula over them.
 */
@Injectable()
export class TrendsService {
  constructor(private readonly repository: AnalyticsRepository) {}

  async compute(parsed: InsightQuery, ctx: SqlContext, cohortNames: ReadonlyMap<number, string>): Promise<InsightResult> {
    const query = await this.binned(parsed, ctx);
    const { slices, hasMore, pagePoints } = await this.slices(query, ctx, cohortNames);
    const periods: Array<[SeriesResult['compareLabel'], DateRange]> = query.compare
      ? [['current', query.range], ['previous', previousRange(query.range)]]
      : [[null, query.range]];
    const perPeriod: SeriesResult[][][] = [];
    for (const [compareLabel, range] of periods) {
      const perSeries: SeriesResult[][] = [];
      const read = compareLabel === 'previous' ? null : pagePoints;
      for (const series of query.series) perSeries.push(await this.seriesLines(query, series, range, slices, compareLabel, ctx, read));
      perPeriod.push(perSeries);
    }
    // Each formula's lines, for every compared period, before the next formula's (as PostHog orders them).
    const lines = query.formulas.length
      ? query.formulas.flatMap((formula) => perPeriod.flatMap((perSeries) => this.formulaLines(formula, perSeries)))
      : perPeriod.flatMap((perSeries) => perSeries.flat());
    return { series: lines, hasMore };
  }

  /** A histogram breakdown with its bins read from the data; any other query as it is. */
  private async binned(query: InsightQuery, ctx: SqlContext): Promise<InsightQuery> {
    const breakdown = query.breakdown;
    if (breakdown?.kind !== 'property' || breakdown.histogramBinCount === null) return query;
    const edges = await this.repository.histogramEdges(histogramEdgesSql(query, ctx, breakdown.histogramBinCount));
    return { ...query, breakdown: { ...breakdown, bins: histogramBins(edges) } };
  }

  /** The breakdown values of this page (most events first), the bins in order, the listed cohorts, or no breakdown. */
  private async slices(query: InsightQuery, ctx: SqlContext, cohortNames: ReadonlyMap<number, string>): Promise<Slices> {
    const breakdown = query.breakdown;
    if (!breakdown) return { slices: [{ slice: null, values: [{ key: null, value: null, label: null }] }], hasMore: false, pagePoints: null };
    if (breakdown.kind === 'cohort') {
      const slices = breakdown.cohorts.map((cohort) => ({
        slice: { kind: 'cohort' as const, cohort },
        values: [{ key: null, value: cohort, label: cohort === 'all' ? 'all users' : (cohortNames.get(cohort) ?? String(cohort)) }],
      }));
      return { slices, hasMore: false, pagePoints: null };
    }
    if (breakdown.bins) {
      const labels = breakdown.bins.map((bin) => bin.label);
      const slices: SliceView[] = labels.length ? [{ slice: { kind: 'values', values: labels }, values: labels.map((label) => ({ key: label, value: label, label })) }] : [];
      return { slices, hasMore: false, pagePoints: null };
    }
    const { page, ranked, hasMore, pagePoints } = ranksByItsOwnEvents(query) ? await this.rankedWithPoints(query, breakdown, ctx) : { ...(await this.rankedValues(query, breakdown, ctx)), pagePoints: null };
    const multi = breakdown.properties.length > 1;
    const values = page.map((key) => {
      const value = shownValue(key, multi);
      return { key, value, label: breakdownLabel(value) };
    });
    const slices: SliceView[] = page.length ? [{ slice: { kind: 'values', values: page }, values }] : [];
    if (hasMore && !breakdown.hideOther) {
      const other = otherValue(breakdown);
      slices.push({ slice: { kind: 'other', ranked }, values: [{ key: null, value: other, label: breakdownLabel(other) }] });
    }
    return { slices, hasMore, pagePoints };
  }

  /** The ranking of {@link rankedValues} and the points of the page's values, read at once (see `rankedPointsSql`). */
  private async rankedWithPoints(query: InsightQuery, breakdown: Breakdown & { kind: 'property' }, ctx: SqlContext) {
    const end = query.breakdownOffset + breakdown.limit;
    const rows = await this.repository.rankedPoints(rankedPointsSql(query, query.series[0], ctx, end, AGGREGATE_DISPLAYS.has(query.display)));
    const ranked = rows.slice(0, end).map((row) => row.value);
    const pagePoints = rows.slice(query.breakdownOffset, end).flatMap((row) => row.points);
    return { page: ranked.slice(query.breakdownOffset), ranked, hasMore: rows.length > end, pagePoints };
  }

  /**
   * This page's breakdown values, every value ranked up to its end (those the Other line leaves out), and whether
   * any value ranks past it.
   */
  async rankedValues(query: InsightQuery, breakdown: Breakdown & { kind: 'property' }, ctx: SqlContext): Promise<{ page: string[]; ranked: string[]; hasMore: boolean }> {
    const end = query.breakdownOffset + breakdown.limit;
    const rows = await this.repository.breakdownValues(topBreakdownValuesSql(query, ctx, end, 0));
    const ranked = rows.slice(0, end).map((r) => r.value);
    return { page: ranked.slice(query.breakdownOffset), ranked, hasMore: rows.length > end };
  }

  private async seriesLines(
    query: InsightQuery, series: Series, range: DateRange, slices: SliceView[], compareLabel: SeriesResult['compareLabel'], ctx: SqlContext, pagePoints: PointRow[] | null,
  ): Promise<SeriesResult[]> {
    const aggregate = AGGREGATE_DISPLAYS.has(query.display);
    const buckets = aggregate ? [] : bucketStarts(range, query.interval, query.weekStartDay);
    const lines: SeriesResult[] = [];
    for (const view of slices) {
      const rows = view.slice?.kind === 'values' && pagePoints ? pagePoints : await this.points(query, series, range, view.slice, buckets, aggregate, ctx);
      for (const shown of view.values) {
        const mine = rows.filter((row) => view.slice?.kind !== 'values' || row.breakdown_value === shown.key);
        const label = shown.label === null ? series.customName ?? series.name : `${series.customName ?? series.name} - ${shown.label}`;
        lines.push({
          series, label, breakdownValue: shown.value, breakdownLabel: shown.label, compareLabel, range, buckets,
          ...(view.slice?.kind === 'other' ? { otherThan: view.slice.ranked } : {}),
          data: aggregate ? [] : this.filled(query, buckets, mine),
          aggregatedValue: aggregate ? (mine[0]?.value ?? 0) : null,
        });
      }
    }
    return lines;
  }

  private points(query: InsightQuery, series: Series, range: DateRange, slice: BreakdownSlice, buckets: DateTime[], aggregate: boolean, ctx: SqlContext): Promise<PointRow[]> {
    const read = pointsRead(query, series);
    switch (read.kind) {
      case 'activeActors':
        return this.repository.points(activeActorsSql(query, series, range, slice, this.windows(range, buckets, aggregate), read.days, ctx));
      case 'firstSeen':
        return this.repository.points(firstSeenPointsSql(query, series, range, slice, ctx));
      case 'firstTime':
        return this.repository.points(firstTimePointsSql(query, { ...series, math: read.math }, range, slice, ctx, aggregate));
      case 'countPerActor':
        return this.repository.points(countPerActorPointsSql(query, { ...series, math: read.math }, range, slice, ctx, aggregate));
      case 'events':
        return this.repository.points(trendPointsSql(query, series, range, slice, ctx, aggregate));
    }
  }

  /**
   * Active-users windows: each point's ends on the point's own day, the first of its week or month (PostHog counts the
   * days up to each label, so a weekly point of monthly actives is the 30 days up to the week's first day); one number
   * over the whole range ends on its last day.
   */
  private windows(range: DateRange, buckets: DateTime[], aggregate: boolean): ActiveWindow[] {
    if (aggregate) return [{ bucket: 'all', lastDay: bucketKey(range.to.startOf('day')) }];
    return buckets.map((start) => ({ bucket: bucketKey(start), lastDay: bucketKey(start.startOf('day')) }));
  }

  /** Zero-filled values in bucket order; the cumulative display runs a sum over them. */
  private filled(query: InsightQuery, buckets: DateTime[], rows: PointRow[]): number[] {
    const byBucket = new Map(rows.map((row) => [row.bucket, row.value ?? 0]));
    const data = buckets.map((start) => byBucket.get(bucketKey(start)) ?? 0);
    if (query.display !== 'ActionsLineGraphCumulative') return data;
    let sum = 0;
    return data.map((value) => (sum += value));
  }

  /** The formula's line per breakdown value: the same point of each series, combined; named as PostHog names it. */
  private formulaLines({ formula, customName }: FormulaLine, perSeries: SeriesResult[][]): SeriesResult[] {
    const parsed = parseFormula(formula, perSeries.length);
    const name = customName ?? `Formula (${formula})`;
    return perSeries[0].map((template, line) => {
      const at = (index: number) => perSeries.map((lines) => (lines[line]?.data[index] ?? 0));
      const aggregated = template.aggregatedValue === null ? null : evaluateFormula(parsed, perSeries.map((lines) => lines[line]?.aggregatedValue ?? 0));
      const label = template.breakdownLabel === null ? name : `${name} - ${template.breakdownLabel}`;
      return { ...template, series: null, label, data: template.data.map((_, i) => evaluateFormula(parsed, at(i))), aggregatedValue: aggregated };
    });
  }
}

type PointsRead =
  | { kind: 'activeActors'; days: number }
  | { kind: 'firstSeen' }
  | { kind: 'firstTime'; math: FirstTimeMath }
  | { kind: 'countPerActor'; math: CountPerActorMath }
  | { kind: 'events' };

/** The read a series' points come from: one rule, for {@link TrendsService.points} and {@link ranksByItsOwnEvents} alike. */
function pointsRead(query: InsightQuery, { math }: Series): PointsRead {
  const days = activeUserDays(math, query.interval);
  if (days) return { kind: 'activeActors', days };
  if (query.display === 'ActionsLineGraphCumulative' && (math === 'dau' || math === 'unique_group')) return { kind: 'firstSeen' };
  if (isFirstTime(math)) return { kind: 'firstTime', math };
  if (isCountPerActor(math)) return { kind: 'countPerActor', math };
  return { kind: 'events' };
}

/**
 * Whether the query's one series counts exactly the events its breakdown values rank by (points read from the events,
 * with a count or a property math, not a distinct count, which leaves events without an actor out): then the ranking
 * and the points are one read.
 */
function ranksByItsOwnEvents(query: InsightQuery): boolean {
  const [series, ...others] = query.series;
  if (others.length > 0 || pointsRead(query, series).kind !== 'events') return false;
  return series.math === 'total' || (PROPERTY_MATHS as readonly string[]).includes(series.math);
}
