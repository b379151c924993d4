import { Injectable } from '@nestjs/common';
import { DateTime } from 'luxon';
import { ActorSequencesService } from './actor-sequences.service';
import { AnalyticsRepository, FunnelStepLineRow } from './analytics.repository';
import { actorPage, byteOrder, sortActors } from './model/actor-page';
import { ActorEventsWithValues, runsByBreakdown } from './model/funnel-breakdown';
import { conversionHistogram, conversionSeconds, ConversionTrendTally, Histogram, stepsByEntrancePeriod, trendsActorSelected } from './model/funnel-conversion';
import { ActorEvents, evaluateActor, FunnelSpec, funnelSpecOf, KeptRun, keptRuns, outcomeOf, StepSummary } from './model/funnel-evaluation';
import { bucketKey, bucketStarts, intervalStart } from './model/insight-dates';
import type { FunnelActorsSelection, InsightQuery } from './model/insight-query';
import type { ActorPage, BreakdownValue } from './model/insight-result';
import type { SqlContext } from './sql/event-scope.sql';
import { funnelStepActorsSql, funnelStepLinesSql } from './sql/funnel.sql';

type ActorEventsRow = ActorEvents & { actor: string; values?: string[] };

/** One breakdown line of a funnel (or the only one): its value as replies show it and its label. */
export interface FunnelLineKey {
  value: BreakdownValue | null;
  label: string | null;
}

export type FunnelResult =
  | { vizType: 'steps'; lines: Array<FunnelLineKey & { steps: StepSummary[] }> }
  | { vizType: 'trends'; periods: string[]; lines: Array<FunnelLineKey & { data: number[] }> }
  | { vizType: 'time_to_convert'; histogram: Histogram };

interface LineTally {
  key: FunnelLineKey;
  trend: ConversionTrendTally;
  actors: number;
}

/** Each line's tally, by its value; a pass's own line is one object for all its actors, found by identity without its text. */
class LineTallies {
  private readonly byValue = new Map<string, LineTally>();
  private readonly byPassKey = new Map<FunnelLineKey, LineTally>();

  constructor(private readonly make: (key: FunnelLineKey) => LineTally) {}

  of(key: FunnelLineKey): LineTally {
    const known = this.byPassKey.get(key);
    if (known) return known;
    const id = JSON.stringify(key.value);
    let tally = this.byValue.get(id);
    if (!tally) this.byValue.set(id, (tally = this.make(key)));
    return tally;
  }

  /** A line that exists whatever the data (no breakdown, each cohort): shown even when nobody entered it. */
  keepPassLine(key: FunnelLineKey): void {
    this.byPassKey.set(key, this.of(key));
  }

  all(): LineTally[] {
    return [...this.byValue.values()];
  }
}

/** One pass over the events: all actors, or one cohort's (cohort breakdowns read each cohort apart). */
interface Pass {
  cohort: number | 'all' | null;
  key: FunnelLineKey | null;
}

/** A step line as the engine tallied it (or nobody, for a line that shows whether or not anyone entered it). */
function stepSummaries(row: FunnelStepLineRow | undefined, stepCount: number): StepSummary[] {
  return Array.from({ length: stepCount }, (_, step) => ({ count: row?.counts[step] ?? 0, averageConversionTime: row?.averages[step] ?? null, medianConversionTime: row?.medians[step] ?? null }));
}

/**
 * Funnels. Step lines and their persons are evaluated in the engine (sql/funnel-outcome.sql.ts); funnel trends
 * and time to convert visit every actor's events as they stream in, through model/funnel-evaluation.ts.
 */
@Injectable()
export class FunnelsService {
  constructor(
    private readonly repository: AnalyticsRepository,
    private readonly sequences: ActorSequencesService,
  ) {}

  async compute(query: InsightQuery, ctx: SqlContext, cohortNames: ReadonlyMap<number, string>): Promise<FunnelResult> {
    const options = query.funnel!;
    const spec = funnelSpecOf(query);
    if (options.vizType === 'time_to_convert') {
      const samples: number[] = [];
      await this.forEachActor(query, ctx, null, (row) => {
        const seconds = conversionSeconds(evaluateActor(row, spec), options.fromStep, options.toStep);
        if (seconds !== null) samples.push(seconds);
      });
      return { vizType: 'time_to_convert', histogram: conversionHistogram(samples, options.binCount) };
    }
    if (options.vizType === 'steps') return { vizType: 'steps', lines: await this.stepLines(query, ctx, cohortNames) };
    const periodOf = this.periodOf(query);
    const tallies = new LineTallies((key) => ({ key, trend: new ConversionTrendTally(options.fromStep, options.toStep), actors: 0 }));
    const passes = this.passes(query, cohortNames);
    for (const pass of passes) if (pass.key) tallies.keepPassLine(pass.key);
    for (const pass of passes) {
      await this.forEachActor(query, ctx, pass.cohort, (row) => {
        for (const { key, runs } of this.attributed(query, spec, row, pass)) {
          if (outcomeOf(runs).steps === 0) continue;
          const tally = tallies.of(key);
          tally.actors++;
          tally.trend.add(stepsByEntrancePeriod(runs, periodOf));
        }
      });
    }
    const ranked = this.ranked(query, tallies.all());
    const periods = bucketStarts(query.range, query.interval, query.weekStartDay).map(bucketKey);
    return { vizType: 'trends', periods, lines: ranked.map((t) => ({ ...t.key, data: t.trend.rates(periods) })) };
  }

  /** Step lines, evaluated in the engine: one row per line leaves it. A pass's own line shows even when nobody entered it. */
  private async stepLines(query: InsightQuery, ctx: SqlContext, cohortNames: ReadonlyMap<number, string>): Promise<Array<FunnelLineKey & { steps: StepSummary[] }>> {
    const stepCount = query.series.length;
    const lines: Array<{ key: FunnelLineKey; actors: number; steps: StepSummary[] }> = [];
    for (const pass of this.passes(query, cohortNames)) {
      const rows = await this.repository.funnelStepLines(funnelStepLinesSql(query, ctx, pass.cohort));
      if (pass.key) lines.push({ key: pass.key, actors: rows[0]?.actors ?? 0, steps: stepSummaries(rows[0], stepCount) });
      else for (const row of rows) lines.push({ key: this.lineKey(query, row.line), actors: row.actors, steps: stepSummaries(row, stepCount) });
    }
    return this.ranked(query, lines).map((line) => ({ ...line.key, steps: line.steps }));
  }

  /** The actors a persons request selects, in actor order (persons by id, groups by key), one page. */
  async actors(query: InsightQuery, selection: FunnelActorsSelection, ctx: SqlContext): Promise<ActorPage> {
    const spec = funnelSpecOf(query);
    const options = query.funnel!;
    const periodOf = this.periodOf(query);
    const period = selection.entrancePeriod ? bucketKey(selection.entrancePeriod.start) : null;
    const wanted = selection.breakdownValue === undefined ? undefined : JSON.stringify(this.shown(query, selection.breakdownValue));
    const pass = this.personsPass(query, selection);
    let ids: string[] = [];
    const inLine = (shown: BreakdownValue | null) => wanted === undefined || query.breakdown?.kind !== 'property' || JSON.stringify(shown) === wanted;
    if (period === null) {
      await this.repository.forEachRow<{ actor: string; line: string }>(funnelStepActorsSql(query, ctx, pass.cohort, selection), (row) => {
        if (inLine(this.shown(query, row.line))) ids.push(row.actor);
      });
    } else {
      await this.forEachActor(query, ctx, pass.cohort, (row) => {
        const matches = this.attributed(query, spec, row, pass).some(({ key, runs }) => {
          if (!inLine(key.value)) return false;
          const steps = stepsByEntrancePeriod(runs, periodOf).get(period) ?? 0;
          return steps > 0 && trendsActorSelected(steps, options.fromStep, options.toStep, selection.entrancePeriod!.dropOff);
        });
        if (matches) ids.push(row.actor);
      });
    }
    const groupTypeIndex = query.aggregationGroupTypeIndex;
    ids = sortActors(ids, groupTypeIndex);
    if (selection.search) {
      const matching = new Set(await this.repository.actorsMatching(ctx.projectId, groupTypeIndex, ids, selection.search));
      ids = ids.filter((id) => matching.has(id));
    }
    return actorPage(ids, groupTypeIndex, selection);
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

  /** The runs an actor counts under each line: the pass's own line, or one per attributed breakdown value. */
  private attributed(query: InsightQuery, spec: FunnelSpec, row: ActorEventsRow, pass: Pass): Array<{ key: FunnelLineKey; runs: KeptRun[] }> {
    if (pass.key) return [{ key: pass.key, runs: keptRuns(row, spec) }];
    return runsByBreakdown(row as ActorEventsWithValues, spec, query.funnel!.attribution).map(({ value, runs }) => ({ key: this.lineKey(query, value), runs }));
  }

  private lineKey(query: InsightQuery, value: string | number | 'all'): FunnelLineKey {
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
  private ranked<T extends { key: FunnelLineKey; actors: number }>(query: InsightQuery, tallies: T[]): T[] {
    if (query.breakdown?.kind !== 'property') return tallies;
    const text = (t: T) => JSON.stringify(t.key.value);
    return tallies.sort((a, b) => b.actors - a.actors || byteOrder(text(a), text(b))).slice(0, query.breakdown.limit);
  }

  private periodOf(query: InsightQuery): (at: number) => string {
    return (at) => bucketKey(intervalStart(DateTime.fromMillis(at, { zone: query.timezone }), query.interval, query.weekStartDay));
  }

  private forEachActor(query: InsightQuery, ctx: SqlContext, cohort: number | 'all' | null, visit: (row: ActorEventsRow) => void): Promise<void> {
    return this.sequences.forEachFunnelActor<ActorEventsRow>(query, ctx, { cohort }, visit);
  }
}
