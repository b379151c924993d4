import { Injectable } from '@nestjs/common';
import type { DateTime } from 'luxon';
import { AnalyticsRepository } from './analytics.repository';
import { actorPage, byteOrder } from './model/actor-page';
import type { InsightQuery, RetentionActorsSelection } from './model/insight-query';
import type { ActorPage } from './model/insight-result';
import type { SqlContext } from './sql/event-scope.sql';
import { retentionActorsSql, retentionCohortCountsSql, retentionCountsSql } from './sql/retention.sql';

/** One line of the table: a cohort (its start) or a breakdown value, and its actors per interval after. */
export interface RetentionLine {
  cohortStart: DateTime | null;
  breakdownValue: string | null;
  values: number[];
}

/** A line's table by cohort, as the query API answers retention: per cohort, its actors retained 0 … n-1 periods later. */
export interface RetentionCohortLine {
  breakdownValue: string | null;
  cohorts: number[][];
}

/** A retention persons page: the actors, and for each the intervals they were there (1) or not (0). */
interface RetentionActorsPage {
  page: ActorPage;
  appearances: Map<string, number[]>;
}

/**
 * Retention: the cohort table (row i holds cohort i's actors retained 0 … n-1-i periods later) or, with
 * a breakdown, one row per value (its actors retained 0 … n-1 periods after their cohort).
 */
@Injectable()
export class RetentionService {
  constructor(private readonly repository: AnalyticsRepository) {}

  async table(query: InsightQuery, ctx: SqlContext): Promise<RetentionLine[]> {
    const total = query.retention!.totalIntervals;
    const rows = await this.repository.counts(retentionCountsSql(query, ctx), ['line', 'interval']);
    const value = new Map(rows.map((row) => [`${row.line}/${row.interval}`, row.value]));
    if (!query.breakdown) {
      return Array.from({ length: total }, (_, i) => ({
        cohortStart: query.range.from.plus({ [`${query.interval}s`]: i }),
        breakdownValue: null,
        values: Array.from({ length: total - i }, (__, k) => value.get(`${i}/${k}`) ?? 0),
      }));
    }
    const sizes = rows.filter((row) => Number(row.interval) === 0);
    const lines = sizes.sort((a, b) => b.value - a.value || byteOrder(a.line, b.line)).slice(0, query.breakdown.kind === 'property' ? query.breakdown.limit : sizes.length);
    return lines.map((line) => ({ cohortStart: null, breakdownValue: line.line, values: Array.from({ length: total }, (_, k) => value.get(`${line.line}/${k}`) ?? 0) }));
  }

  /**
   * The table by cohort and line, as PostHog's RetentionQuery answers it: every cohort of every line (the lines as
   * the legacy table ranks them), each padded to the table's periods with 0 past its end.
   */
  async byCohort(query: InsightQuery, ctx: SqlContext): Promise<RetentionCohortLine[]> {
    const total = query.retention!.totalIntervals;
    const lines = await this.table(query, ctx);
    const padded = (values: number[]) => Array.from({ length: total }, (_, k) => values[k] ?? 0);
    if (!query.breakdown) return [{ breakdownValue: null, cohorts: lines.map((line) => padded(line.values)) }];
    const rows = await this.repository.counts(retentionCohortCountsSql(query, ctx), ['line', 'cohort', 'interval']);
    const value = new Map(rows.map((row) => [`${row.line}/${row.cohort}/${row.interval}`, row.value]));
    return lines.map((line) => ({
      breakdownValue: line.breakdownValue,
      cohorts: Array.from({ length: total }, (_, c) => Array.from({ length: total }, (__, k) => value.get(`${line.breakdownValue}/${c}/${k}`) ?? 0)),
    }));
  }

  /** One page of a cohort's actors: most appearances first, then by actor. */
  async actors(query: InsightQuery, selection: RetentionActorsSelection, ctx: SqlContext): Promise<RetentionActorsPage> {
    const total = query.retention!.totalIntervals;
    const length = selection.breakdownValue !== undefined ? total : total - (selection.cohort ?? 0);
    const rows = await this.repository.retainedActors(retentionActorsSql(query, selection, length, ctx));
    const appearances = new Map(rows.map((row) => [row.actor, Array.from({ length }, (_, k): number => (k === 0 || row.intervals.includes(k) ? 1 : 0))]));
    return { page: actorPage(rows.map((row) => row.actor), query.aggregationGroupTypeIndex, { limit: selection.limit, offset: 0 }), appearances };
  }
}
