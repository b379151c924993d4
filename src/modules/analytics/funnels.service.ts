import { Injectable } from '@nestjs/common';
import { AnalyticsRepository, FunnelStepLineRow } from './analytics.repository';
import { actorPage, byteOrder, sortActors } from './model/actor-page';
import { conversionHistogram, conversionRates, Histogram } from './model/funnel-conversion';
import type { StepSummary } from './model/funnel-evaluation';
import { bucketKey, bucketStarts } from './model/insight-dates';
import type { FunnelActorsSelection, InsightQuery } from './model/insight-query';
import type { ActorPage, BreakdownValue } from './model/insight-result';
import type { BuiltSql, SqlContext } from './sql/event-scope.sql';
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
      const lines = await this.lines(query, cohortNames, (cohort) => this.repository.funnelStepLines(funnelStepLinesSql(query, ctx, cohort)), (row) => ({ steps: stepSummaries(row, stepCount) }));
      return { vizType: 'steps', lines };
    }
    const periods = bucketStarts(query.range, query.interval, query.weekStartDay).map(bucketKey);
    const lines = await this.lines(query, cohortNames, (cohort) => this.repository.funnelTrendLines(funnelTrendLinesSql(query, ctx, cohort)),
      (row) => ({ data: conversionRates(periods, row?.entered ?? new Map(), row?.converted ?? new Map()) }));
    return { vizType: 'trends', periods, lines };
  }

  /** The actors a persons request selects, in actor order (persons by id, groups by key), one page. */
  async actors(query: InsightQuery, selection: FunnelActorsSelection, ctx: SqlContext): Promise<ActorPage> {
    const pass = this.personsPass(query, selection);
    const point = selection.entrancePeriod;
    const sql: BuiltSql = point
      ? funnelTrendActorsSql(query, ctx, pass.cohort, { period: bucketKey(point.start), dropOff: point.dropOff })
      : funnelStepActorsSql(query, ctx, pass.cohort, selection);
    const wanted = selection.breakdownValue === undefined || query.breakdown?.kind !== 'property' ? undefined : JSON.stringify(this.shown(query, selection.breakdownValue));
    let ids: string[] = [];
    await this.repository.forEachRow<{ actor: string; line: string }>(sql, (row) => {
      if (wanted === undefined || JSON.stringify(this.shown(query, row.line)) === wanted) ids.push(row.actor);
    });
    const groupTypeIndex = query.aggregationGroupTypeIndex;
    ids = sortActors(ids, groupTypeIndex);
    if (selection.search) {
      const matching = new Set(await this.repository.actorsMatching(ctx.projectId, groupTypeIndex, ids, selection.search));
      ids = ids.filter((id) => matching.has(id));
    }
    return actorPage(ids, groupTypeIndex, selection);
  }

  /** Every pass's lines, named and ranked; a pass's own line shows even when nobody entered it. */
  private async lines<R extends EngineLine, L>(query: InsightQuery, cohortNames: ReadonlyMap<number, string>, read: (cohort: Pass['cohort']) => Promise<R[]>, shape: (row: R | undefined) => L): Promise<Array<FunnelLineKey & L>> {
    const lines: Array<{ key: FunnelLineKey; actors: number; shaped: L }> = [];
    for (const pass of this.passes(query, cohortNames)) {
      const rows = await read(pass.cohort);
      if (pass.key) lines.push({ key: pass.key, actors: rows[0]?.actors ?? 0, shaped: shape(rows[0]) });
      else for (const row of rows) lines.push({ key: this.lineKey(query, row.line), actors: row.actors, shaped: shape(row) });
    }
    return this.ranked(query, lines).map((line) => ({ ...line.key, ...line.shaped }));
  }

  /** Persons of a cohort line read that cohort; of a property line, every actor (then filtered by value). */
  private personsPass(query: InsightQuery, selection: FunnelActorsSelection): Pass {
    if (query.breakdown?.kind === 'property') return { cohort: null, key: null };
    if (query.breakdown?.kind !== 'cohort') return { cohort: null, key: { value: null, label: null } };
    const cohort = (selection.breakdownValue as number | 'all' | undefined) ?? 'all';
    return { cohort, key: { value: cohort, label: null } };
  }

  private passes(query: InsightQuery, cohortNames: ReadonlyMap<number, string>): Pass[] {
    if (query.breakdown?.kind !== 'cohort') return [{ cohort: null, key: query.breakdown ? null : { value: null, label: null } }];
    return query.breakdown.cohorts.map((cohort) => ({ cohort, key: { value: cohort, label: cohort === 'all' ? 'all users' : (cohortNames.get(cohort) ?? String(cohort)) } }));
  }

  private lineKey(query: InsightQuery, value: string): FunnelLineKey {
    const shown = this.shown(query, value);
    return { value: shown, label: Array.isArray(shown) ? shown.join('::') : String(shown) };
  }

  /** Several breakdown properties come back as JSON text of a list and are shown as the list. */
  private shown(query: InsightQuery, value: string | number | 'all'): BreakdownValue {
    const multi = query.breakdown?.kind === 'property' && query.breakdown.properties.length > 1;
    // An actor with no attributed event (the null marker) has no list to show.
    return multi && typeof value === 'string' && value.startsWith('[') ? (JSON.parse(value) as string[]) : value;
  }

  /** Property breakdown lines by how many actors entered them (ties in byte order), cut to the limit. */
  private ranked<T extends { key: FunnelLineKey; actors: number }>(query: InsightQuery, lines: T[]): T[] {
    if (query.breakdown?.kind !== 'property') return lines;
    const text = (t: T) => JSON.stringify(t.key.value);
    return lines.sort((a, b) => b.actors - a.actors || byteOrder(text(a), text(b))).slice(0, query.breakdown.limit);
  }
}
