import { Injectable } from '@nestjs/common';
import { AnalyticsRepository, FunnelStepLineRow } from './analytics.repository';
import { actorPage, byteOrder, sortActors } from './model/actor-page';
import { conversionHistogram, conversionRates, Histogram } from './model/funnel-conversion';
import type { StepSummary } from './model/funnel-evaluation';
import { bucketKey, bucketStarts } from './model/insight-dates';
import { breakdownLabel, FunnelActorsSelection, InsightQuery, isOtherValue, otherValue } from './model/insight-query';
import type { ActorPage, BreakdownValue } from './model/insight-result';
import type { BuiltSql, SqlContext } from './sql/event-scope.sql';
import type { OtherLine } from './sql/funnel-outcome.sql';
import { funnelConversionSecondsSql, funnelStepActorsSql, funnelStepLinesSql, funnelTrendActorsSql, funnelTrendLinesSql } from './sql/funnel.sql';

/** One breakdown line of a funnel (or the only one): its value as replies show it and its label. */
export interface FunnelLineKey {
  value: BreakdownValue | null;
  label: string | null;
}

export type FunnelResult =
  | { vizType: 'steps'; lines: Array<FunnelLineKey & { steps: StepSummary[] }> }
  | { vizType: 'trends'; periods: string[]; lines: Array<FunnelLineKey & { data: number[] }> }
  | { vizType: 'time_to_convert'; histogram: Histogram };

/** One read of the funnel: all actors, or one cohort's (cohort breakdowns read each cohort apart, as its own line). */
interface Pass {
  cohort: number | 'all' | null;
  key: FunnelLineKey | null;
}

/** A line as the engine answers it: its breakdown value ('' without a property breakdown) and how many actors entered it. */
interface EngineLine {
  line: string;
  actors: number;
}

/** A step line as the engine tallied it (or nobody, for a line that shows whether or not anyone entered it). */
function stepSummaries(row: FunnelStepLineRow | undefined, stepCount: number): StepSummary[] {
  return Array.from({ length: stepCount }, (_, step) => ({ count: row?.counts[step] ?? 0, averageConversionTime: row?.averages[step] ?? null, medianConversionTime: row?.medians[step] ?? null }));
}

/**
 * Funnels, evaluated inside the engine (sql/funnel-outcome.sql.ts): one row per line, per time-to-convert second
 * or per selected actor leaves it. This service picks the reads, names the lines and ranks them.
 */
@Injectable()
export class FunnelsService {
  constructor(private readonly repository: AnalyticsRepository) {}

  async compute(query: InsightQuery, ctx: SqlContext, cohortNames: ReadonlyMap<number, string>): Promise<FunnelResult> {
    const options = query.funnel!;
    if (options.vizType === 'time_to_convert') {
      const groups = await this.repository.secondGroups(funnelConversionSecondsSql(query, ctx));
      return { vizType: 'time_to_convert', histogram: conversionHistogram(groups, options.binCount) };
    }
    if (options.vizType === 'steps') {
      const stepCount = query.series.length;
      const lines = await this.lines(query, cohortNames, this.stepLines(query, ctx), (row) => ({ steps: stepSummaries(row, stepCount) }));
      return { vizType: 'steps', lines };
    }
    const periods = bucketStarts(query.range, query.interval, query.weekStartDay).map(bucketKey);
    const lines = await this.lines(query, cohortNames, this.trendLines(query, ctx), (row) => ({ data: conversionRates(periods, row?.entered ?? new Map(), row?.converted ?? new Map()) }));
    return { vizType: 'trends', periods, lines };
  }

  private stepLines(query: InsightQuery, ctx: SqlContext) {
    return (cohort: Pass['cohort'], other?: OtherLine) => this.repository.funnelStepLines(funnelStepLinesSql(query, ctx, cohort, other));
  }

  private trendLines(query: InsightQuery, ctx: SqlContext) {
    return (cohort: Pass['cohort'], other?: OtherLine) => this.repository.funnelTrendLines(funnelTrendLinesSql(query, ctx, cohort, other));
  }

  /** The actors a persons request selects, in actor order (persons by id, groups by key), one page. */
  async actors(query: InsightQuery, selection: FunnelActorsSelection, ctx: SqlContext): Promise<ActorPage> {
    const pass = this.personsPass(query, selection);
    const point = selection.entrancePeriod;
    const wanted = selection.breakdownValue === undefined || query.breakdown?.kind !== 'property' ? undefined : JSON.stringify(this.shown(query, selection.breakdownValue));
    // With every line's actors wanted and no search, the engine orders them and hands over the page alone: a step
    // reached by a hundred thousand actors would otherwise be parsed and sorted here, on the event loop capture shares.
    const first = wanted === undefined && !selection.search ? selection.offset + selection.limit : null;
    const sql: BuiltSql = point
      ? funnelTrendActorsSql(query, ctx, pass.cohort, { period: bucketKey(point.start), dropOff: point.dropOff }, first)
      : funnelStepActorsSql(query, ctx, pass.cohort, selection, first);
    // The Other line's actors are those of every line but the shown ones, which only ranking the lines tells.
    const shownLines = wanted !== undefined && isOtherValue(selection.breakdownValue) ? await this.shownLines(query, ctx, point !== undefined) : null;
    const selected = (line: string) => (shownLines ? !shownLines.has(line) : wanted === undefined || JSON.stringify(this.shown(query, line)) === wanted);
    const groupTypeIndex = query.aggregationGroupTypeIndex;
    // A page cut in the engine is every line's actors, already in actor order: none to pick among or sort.
    let ids = first !== null ? await this.repository.actorIds(sql) : sortActors(await this.selectedActors(sql, selected), groupTypeIndex);
    if (selection.search) {
      const matching = new Set(await this.repository.actorsMatching(ctx.projectId, groupTypeIndex, ids, selection.search));
      ids = ids.filter((id) => matching.has(id));
    }
    return actorPage(ids, groupTypeIndex, selection);
  }

  /** Every actor of the lines `selected` keeps, streamed (in no order). */
  private async selectedActors(sql: BuiltSql, selected: (line: string) => boolean): Promise<string[]> {
    const ids: string[] = [];
    await this.repository.forEachRow<{ actor: string; line: string }>(sql, (row) => {
      if (selected(row.line)) ids.push(row.actor);
    });
    return ids;
  }

  /**
   * The lines to show: a property breakdown's most entered ones up to the limit, then (unless hidden) one Other line
   * tallying every other line's actors; otherwise each pass's own line, shown even when nobody entered it.
   */
  private async lines<R extends EngineLine, L>(
    query: InsightQuery, cohortNames: ReadonlyMap<number, string>, read: (cohort: Pass['cohort'], other?: OtherLine) => Promise<R[]>, shape: (row: R | undefined) => L,
  ): Promise<Array<FunnelLineKey & L>> {
    const breakdown = query.breakdown;
    if (breakdown?.kind === 'property') {
      const rows = rankedLines(await read(null));
      const shown = rows.slice(0, breakdown.limit).map((row) => ({ ...this.lineKey(query, row.line), ...shape(row) }));
      if (rows.length <= breakdown.limit || breakdown.hideOther) return shown;
      const value = otherValue(breakdown);
      const other = await read(null, { ranked: rows.slice(0, breakdown.limit).map((row) => row.line), line: Array.isArray(value) ? JSON.stringify(value) : value });
      return [...shown, { value, label: breakdownLabel(value), ...shape(other[0]) }];
    }
    const lines: Array<FunnelLineKey & L> = [];
    for (const pass of this.passes(query, cohortNames)) lines.push({ ...pass.key, ...shape((await read(pass.cohort))[0]) });
    return lines;
  }

  /** The lines a property breakdown shows (their text as the engine gives it), found by ranking every line. */
  private async shownLines(query: InsightQuery, ctx: SqlContext, trends: boolean): Promise<Set<string>> {
    const rows: EngineLine[] = await (trends ? this.trendLines(query, ctx) : this.stepLines(query, ctx))(null);
    const limit = query.breakdown?.kind === 'property' ? query.breakdown.limit : rows.length;
    return new Set(rankedLines(rows).slice(0, limit).map((row) => row.line));
  }

  /** Persons of a cohort line read that cohort; of a property line, every actor (then filtered by value). */
  private personsPass(query: InsightQuery, selection: FunnelActorsSelection): Pass {
    if (query.breakdown?.kind === 'property') return { cohort: null, key: null };
    if (query.breakdown?.kind !== 'cohort') return { cohort: null, key: { value: null, label: null } };
    const cohort = (selection.breakdownValue as number | 'all' | undefined) ?? 'all';
    return { cohort, key: { value: cohort, label: null } };
  }

  /** The reads of a funnel without a property breakdown: the whole funnel, or each cohort of a cohort breakdown. */
  private passes(query: InsightQuery, cohortNames: ReadonlyMap<number, string>): Array<Pass & { key: FunnelLineKey }> {
    if (query.breakdown?.kind !== 'cohort') return [{ cohort: null, key: { value: null, label: null } }];
    return query.breakdown.cohorts.map((cohort) => ({ cohort, key: { value: cohort, label: cohort === 'all' ? 'all users' : (cohortNames.get(cohort) ?? String(cohort)) } }));
  }

  private lineKey(query: InsightQuery, value: string): FunnelLineKey {
    const shown = this.shown(query, value);
    return { value: shown, label: Array.isArray(shown) ? breakdownLabel(shown) : String(shown) };
  }

  /** Several breakdown properties come back as JSON text of a list and are shown as the list. */
  private shown(query: InsightQuery, value: string | number | 'all'): BreakdownValue {
    const multi = query.breakdown?.kind === 'property' && query.breakdown.properties.length > 1;
    // An actor with no attributed event (the null marker) has no list to show.
    return multi && typeof value === 'string' && value.startsWith('[') ? (JSON.parse(value) as string[]) : value;
  }
}

/** Property breakdown lines by how many actors entered them, ties in byte order of their text. */
function rankedLines<R extends EngineLine>(rows: R[]): R[] {
  return rows.sort((a, b) => b.actors - a.actors || byteOrder(a.line, b.line));
}
