import { Injectable } from '@nestjs/common';
import type { DateTime } from 'luxon';
import { AnalyticsRepository, PointRow } from './analytics.repository';
import { evaluateFormula, parseFormula } from './model/formula';
import { histogramBins } from './model/histogram-bins';
import { bucketKey, bucketStarts, previousRange } from './model/insight-dates';
import { activeUserDays, AGGREGATE_DISPLAYS, Breakdown, breakdownLabel, DateRange, FormulaLine, InsightQuery, isCountPerActor, isFirstTime, otherValue, Series } from './model/insight-query';
import type { BreakdownValue, InsightResult, SeriesResult } from './model/insight-result';
import type { SqlContext } from './sql/event-scope.sql';
import {
  activeActorsSql, ActiveWindow, BreakdownSlice, countPerActorPointsSql, firstSeenPointsSql, firstTimePointsSql, histogramEdgesSql, topBreakdownValuesSql, trendPointsSql,
} from './sql/trends.sql';

/** One breakdown slice as queried (`slice`) and as shown (value, label, the row key it comes back under). */
interface SliceView {
  slice: BreakdownSlice;
  values: Array<{ key: string | null; value: BreakdownValue | null; label: string | null }>;
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
    const { slices, hasMore } = await this.slices(query, ctx, cohortNames);
    const periods: Array<[SeriesResult['compareLabel'], DateRange]> = query.compare
      ? [['current', query.range], ['previous', previousRange(query.range)]]
      : [[null, query.range]];
    const perPeriod: SeriesResult[][][] = [];
    for (const [compareLabel, range] of periods) {
      const perSeries: SeriesResult[][] = [];
      for (const series of query.series) perSeries.push(await this.seriesLines(query, series, range, slices, compareLabel, ctx));
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
  private async slices(query: InsightQuery, ctx: SqlContext, cohortNames: ReadonlyMap<number, string>): Promise<{ slices: SliceView[]; hasMore: boolean }> {
    const breakdown = query.breakdown;
    if (!breakdown) return { slices: [{ slice: null, values: [{ key: null, value: null, label: null }] }], hasMore: false };
    if (breakdown.kind === 'cohort') {
      const slices = breakdown.cohorts.map((cohort) => ({
        slice: { kind: 'cohort' as const, cohort },
        values: [{ key: null, value: cohort, label: cohort === 'all' ? 'all users' : (cohortNames.get(cohort) ?? String(cohort)) }],
      }));
      return { slices, hasMore: false };
    }
    if (breakdown.bins) {
      const labels = breakdown.bins.map((bin) => bin.label);
      return { slices: labels.length ? [{ slice: { kind: 'values', values: labels }, values: labels.map((label) => ({ key: label, value: label, label })) }] : [], hasMore: false };
    }
    const { page, ranked, hasMore } = await this.rankedValues(query, breakdown, ctx);
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
    return { slices, hasMore };
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
    query: InsightQuery, series: Series, range: DateRange, slices: SliceView[], compareLabel: SeriesResult['compareLabel'], ctx: SqlContext,
  ): Promise<SeriesResult[]> {
    const aggregate = AGGREGATE_DISPLAYS.has(query.display);
    const buckets = aggregate ? [] : bucketStarts(range, query.interval, query.weekStartDay);
    const lines: SeriesResult[] = [];
    for (const view of slices) {
      const rows = await this.points(query, series, range, view.slice, buckets, aggregate, ctx);
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
    const days = activeUserDays(series.math, query.interval);
    if (days) return this.repository.points(activeActorsSql(query, series, range, slice, this.windows(range, buckets, aggregate), days, ctx));
    const cumulativeActors = query.display === 'ActionsLineGraphCumulative' && (series.math === 'dau' || series.math === 'unique_group');
    if (cumulativeActors) return this.repository.points(firstSeenPointsSql(query, series, range, slice, ctx));
    if (isFirstTime(series.math)) return this.repository.points(firstTimePointsSql(query, { ...series, math: series.math }, range, slice, ctx, aggregate));
    if (isCountPerActor(series.math)) return this.repository.points(countPerActorPointsSql(query, { ...series, math: series.math }, range, slice, ctx, aggregate));
    return this.repository.points(trendPointsSql(query, series, range, slice, ctx, aggregate));
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
