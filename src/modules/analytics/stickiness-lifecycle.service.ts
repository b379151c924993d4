import { Injectable } from '@nestjs/common';
import { AnalyticsRepository } from './analytics.repository';
import { bucketKey, bucketStarts, previousRange } from './model/insight-dates';
import { DateRange, InsightQuery, LIFECYCLE_STATUSES } from './model/insight-query';
import type { InsightResult, SeriesResult } from './model/insight-result';
import type { SqlContext } from './sql/event-scope.sql';
import { lifecycleCountsSql, stickinessCountsSql } from './sql/stickiness-lifecycle.sql';

/** Stickiness (actors by number of active intervals) and lifecycle (persons by status per period). */
@Injectable()
export class StickinessLifecycleService {
  constructor(private readonly repository: AnalyticsRepository) {}

  /** Per series: for k = 1 … number of intervals in the range, the actors active in exactly k of them. */
  async stickiness(query: InsightQuery, ctx: SqlContext): Promise<InsightResult> {
    const periods: Array<[SeriesResult['compareLabel'], DateRange]> = query.compare
      ? [['current', query.range], ['previous', previousRange(query.range)]]
      : [[null, query.range]];
    const cases = periods.flatMap(([compareLabel, range]) => query.series.map((series) => ({ compareLabel, range, series })));
    const lines: SeriesResult[] = [];
    for (const { compareLabel, range, series } of cases) {
      const intervals = bucketStarts(range, query.interval, query.weekStartDay).length;
      const rows = await this.repository.counts(stickinessCountsSql({ ...query, range }, series, ctx), ['intervals']);
      const byDays = new Map(rows.map((row) => [Number(row.intervals), row.value]));
      const data = Array.from({ length: intervals }, (_, i) => byDays.get(i + 1) ?? 0);
      lines.push({
        series, label: series.customName ?? series.name, breakdownValue: null, breakdownLabel: null, compareLabel, range,
        buckets: [], data, aggregatedValue: null,
      });
    }
    return { series: lines, hasMore: false };
  }

  /** The first series' persons as new, returning, resurrecting (positive) and dormant (negative) per period. */
  async lifecycle(query: InsightQuery, ctx: SqlContext): Promise<InsightResult> {
    const series = query.series[0];
    if (!series) return { series: [], hasMore: false };
    const buckets = bucketStarts(query.range, query.interval, query.weekStartDay);
    const rows = await this.repository.counts(lifecycleCountsSql(query, series, ctx), ['status', 'bucket']);
    const lines = LIFECYCLE_STATUSES.map((status): SeriesResult => {
      const byBucket = new Map(rows.filter((row) => row.status === status).map((row) => [row.bucket, row.value]));
      const sign = status === 'dormant' ? -1 : 1;
      return {
        series, label: `${series.customName ?? series.name} - ${status}`, breakdownValue: null, breakdownLabel: null, compareLabel: null,
        range: query.range, buckets, data: buckets.map((start) => sign * (byBucket.get(bucketKey(start)) ?? 0)), aggregatedValue: null, lifecycleStatus: status,
      };
    });
    return { series: lines, hasMore: false };
  }
}
