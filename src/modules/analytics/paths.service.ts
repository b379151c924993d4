import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error';
import { ActorSequencesService } from './actor-sequences.service';
import { actorPage, sortActors } from './model/actor-page';
import { ActorEvents, earliestBestRun, funnelSpecOf, keptRuns, stepSelector } from './model/funnel-evaluation';
import type { InsightQuery, PathActorsSelection, PathOptions } from './model/insight-query';
import type { ActorPage } from './model/insight-result';
import { actorPaths, EdgeTally, PathEdge, pathSelected, pathSpecOf, PathStep } from './model/path-building';
import type { SqlContext } from './sql/event-scope.sql';

/** The span of an actor's events a funnel path reads. */
type Window = { from: number; to: number };

/** Paths: every actor's sessions built as their events stream in, counted into edges or selected as persons. */
@Injectable()
export class PathsService {
  constructor(private readonly sequences: ActorSequencesService) {}

  async edges(query: InsightQuery, ctx: SqlContext): Promise<PathEdge[]> {
    const options = query.paths!;
    const tally = new EdgeTally();
    await this.forEachActor(query, ctx, (_, paths) => paths.forEach((path) => tally.add(path)));
    return tally.result(options.edgeLimit, options.minEdgeWeight, options.maxEdgeWeight);
  }

  /** The actors whose paths hold the selected keys, in actor order; a key that no path holds is a 400. */
  async actors(query: InsightQuery, selection: PathActorsSelection, ctx: SqlContext): Promise<ActorPage> {
    const ids: string[] = [];
    const seen = new Set<string>();
    const named = [selection.start, selection.end, selection.dropoff].filter((key): key is string => key !== null);
    await this.forEachActor(query, ctx, (actor, paths) => {
      for (const path of paths) for (const step of path) if (named.includes(step.key)) seen.add(step.key);
      if (pathSelected(paths, selection)) ids.push(actor);
    });
    const missing = (['start', 'end', 'dropoff'] as const).find((name) => selection[name] !== null && !seen.has(selection[name] as string));
    if (missing) throw ApiError.validation(`path_${missing}_key "${selection[missing]}" names no step of these paths: take keys from the insight's edges.`, `path_${missing}_key`);
    return actorPage(sortActors(ids, query.aggregationGroupTypeIndex), query.aggregationGroupTypeIndex, selection);
  }

  private async forEachActor(query: InsightQuery, ctx: SqlContext, visit: (actor: string, paths: PathStep[][]) => void): Promise<void> {
    const options = query.paths!;
    const spec = pathSpecOf(options);
    const windows = options.funnel ? await this.funnelWindows(options.funnel, ctx) : null;
    await this.sequences.forEachPathActor(query, ctx, (row) => {
      if (!windows) return visit(row.actor, actorPaths(row.times, row.items, spec));
      const window = windows.get(row.actor);
      if (!window) return;
      const kept = row.times.map((at, i) => (at >= window.from && at <= window.to ? i : -1)).filter((i) => i >= 0);
      visit(row.actor, actorPaths(kept.map((i) => row.times[i]), kept.map((i) => row.items[i]), spec));
    });
  }

  /**
   * Funnel paths: the actors at the funnel step (reached it, or dropped off right before it for a negative
   * step), each with the span their path reads: from the step on, up to it, or between it and the step
   * before, taken from the earliest of their best runs.
   */
  private async funnelWindows(funnel: NonNullable<PathOptions['funnel']>, ctx: SqlContext): Promise<Map<string, Window>> {
    const spec = funnelSpecOf(funnel.query);
    const windows = new Map<string, Window>();
    const chosen = stepSelector({ step: funnel.step });
    await this.sequences.forEachFunnelActor<ActorEvents & { actor: string }>(funnel.query, ctx, {}, (row) => {
      const best = earliestBestRun(keptRuns(row, spec));
      const steps = best?.reached.length ?? 0;
      if (!best || !chosen(steps)) return;
      const at = (step: number) => best.reached[step - 1];
      if (funnel.step < 0) windows.set(row.actor, { from: at(steps), to: Infinity });
      else if (funnel.type === 'funnel_path_after_step') windows.set(row.actor, { from: at(funnel.step), to: Infinity });
      else if (funnel.type === 'funnel_path_before_step') windows.set(row.actor, { from: -Infinity, to: at(funnel.step) });
      else windows.set(row.actor, { from: at(funnel.step - 1), to: at(funnel.step) });
    });
    return windows;
  }
}
