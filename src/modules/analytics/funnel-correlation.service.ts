import { Injectable } from '@nestjs/common';
import { ActorSequencesService } from './actor-sequences.service';
import { AnalyticsRepository } from './analytics.repository';
import { actorPage, sortActors } from './model/actor-page';
import { ActorFunnelSpan, CorrelationResult, CorrelationTally, eventsInSpan, funnelSpan, propertyText } from './model/funnel-correlation';
import { ActorEvents, FunnelSpec, funnelSpecOf, keptRuns } from './model/funnel-evaluation';
import type { InsightQuery } from './model/insight-query';
import type { ActorPage } from './model/insight-result';
import type { CorrelationActorsSelection, CorrelationOptions } from './parsers/funnel-correlation.parser';
import type { SqlContext } from './sql/event-scope.sql';
import type { FunnelReadOptions } from './sql/funnel.sql';

/** Actors whose properties are read at once (property correlation). */
const PROPERTY_BATCH = 5000;

type CorrelationRow = ActorEvents & { actor: string; names?: string[]; properties?: Array<Record<string, unknown> | null>; marks?: boolean[] };

/**
 * Funnel correlation and the persons behind one of its rows. Every actor who entered the funnel is read
 * with all their events of the range, so the events inside their funnel span (after the first step,
 * before the last step or the window's end) can be counted as candidates.
 */
@Injectable()
export class FunnelCorrelationService {
  constructor(
    private readonly repository: AnalyticsRepository,
    private readonly sequences: ActorSequencesService,
  ) {}

  async correlate(query: InsightQuery, options: CorrelationOptions, ctx: SqlContext): Promise<CorrelationResult> {
    const tally = new CorrelationTally();
    if (options.type === 'properties') {
      const actors: Array<{ actor: string; converted: boolean }> = [];
      await this.forEachSpan(query, ctx, {}, (row, span) => actors.push({ actor: row.actor, converted: span.converted }));
      for (let i = 0; i < actors.length; i += PROPERTY_BATCH) {
        const batch = actors.slice(i, i + PROPERTY_BATCH);
        const properties = await this.repository.actorProperties(ctx.projectId, query.aggregationGroupTypeIndex, batch.map((a) => a.actor));
        for (const { actor, converted } of batch) tally.add(propertyCandidates(properties.get(actor) ?? {}, options), converted);
      }
      return tally.result();
    }
    const withProperties = options.type === 'event_with_properties';
    const stepNames = new Set(query.series.map((s) => s.event));
    const excluded = new Set(options.excludeEventNames);
    const read: FunnelReadOptions = { withNames: true, ...(withProperties ? { propertiesOf: options.eventNames } : {}) };
    await this.forEachSpan(query, ctx, read, (row, span) => {
      const candidates = eventsInSpan(row.times, span, (i) => {
        const name = row.names?.[i] ?? '';
        if (stepNames.has(name) || excluded.has(name)) return null;
        if (!withProperties) return [name];
        if (!options.eventNames.includes(name)) return null;
        return Object.entries(row.properties?.[i] ?? {})
          .filter(([key]) => !options.excludeEventPropertyNames.includes(key))
          .map(([key, value]) => `${name}::${key}::${propertyText(value)}`);
      });
      tally.add(candidates.flat(), span.converted);
    });
    // Event properties are many and thin: a value needs more than two actors to be shown.
    return tally.result(withProperties ? 2 : 0);
  }

  /** One page of a row's actors, in actor order. */
  async actors(query: InsightQuery, selection: CorrelationActorsSelection, ctx: SqlContext): Promise<ActorPage> {
    const ids: string[] = [];
    const read: FunnelReadOptions = selection.entity ? { marked: selection.entity } : { extraFilter: selection.propertyValues };
    await this.forEachSpan(query, ctx, read, (row, span) => {
      if (selection.converted !== null && span.converted !== selection.converted) return;
      if (selection.entity && eventsInSpan(row.times, span, (i) => (row.marks?.[i] ? true : null)).length === 0) return;
      ids.push(row.actor);
    });
    return actorPage(sortActors(ids, query.aggregationGroupTypeIndex), query.aggregationGroupTypeIndex, selection);
  }

  /** Each actor who entered the funnel, with the span of their funnel. */
  private forEachSpan(query: InsightQuery, ctx: SqlContext, read: FunnelReadOptions, visit: (row: CorrelationRow, span: ActorFunnelSpan) => void): Promise<void> {
    const spec: FunnelSpec = funnelSpecOf(query);
    const rangeEnd = query.range.to.toMillis();
    return this.sequences.forEachFunnelActor<CorrelationRow>(query, ctx, read, (row) => {
      const span = funnelSpan(keptRuns(row, spec), spec.stepCount, spec.windowEnd, rangeEnd);
      if (span) visit(row, span);
    });
  }
}

/** `name::value` of the actor's properties that are asked for (every one for `$all`), minus the excluded. */
function propertyCandidates(properties: Record<string, unknown>, options: CorrelationOptions): string[] {
  const names = options.names === 'all' ? Object.keys(properties) : options.names;
  return names.filter((name) => !options.excludeNames.includes(name) && properties[name] !== undefined).map((name) => `${name}::${propertyText(properties[name])}`);
}
