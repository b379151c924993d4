import { Injectable } from '@nestjs/common';
import { AnalyticsRepository } from './analytics.repository';
import { actorPage } from './model/actor-page';
import { ActorFunnelSpan, CorrelationResult, CorrelationTally, eventsInSpan, funnelSpan, propertyText } from './model/funnel-correlation';
import { ActorEvents, FunnelSpec, funnelSpecOf, keptRuns } from './model/funnel-evaluation';
import type { InsightQuery } from './model/insight-query';
import type { ActorPage } from './model/insight-result';
import type { CorrelationActorsSelection, CorrelationOptions } from './parsers/funnel-correlation.parser';
import type { SqlContext } from './sql/event-scope.sql';
import { funnelCorrelationActorsSql, funnelCorrelationEventsSql, funnelEventsSql, FunnelReadOptions } from './sql/funnel.sql';

/** Actors whose properties are read at once (property correlation). */
const PROPERTY_BATCH = 5000;

type CorrelationRow = ActorEvents & { actor: string; names?: string[]; properties?: Array<Record<string, unknown> | null> };

/**
 * Funnel correlation and the persons behind one of its rows. Each actor who entered the funnel has a span
 * (after the first step, before the last step or the window's end) whose events are the candidates. Events
 * and persons are counted in the engine (sql/funnel-outcome.sql.ts); event property values are counted here,
 * over every actor's events streamed with their properties.
 */
@Injectable()
export class FunnelCorrelationService {
  constructor(private readonly repository: AnalyticsRepository) {}

  async correlate(query: InsightQuery, options: CorrelationOptions, ctx: SqlContext): Promise<CorrelationResult> {
    const tally = new CorrelationTally();
    if (options.type === 'events') {
      const skipped = [...query.series.flatMap((s) => (s.event === null ? [] : [s.event])), ...options.excludeEventNames];
      const rows = await this.repository.correlationCounts(funnelCorrelationEventsSql(query, ctx, skipped));
      return CorrelationTally.fromCounts(rows).result();
    }
    if (options.type === 'properties') {
      const actors: Array<{ actor: string; converted: boolean }> = [];
      await this.repository.forEachRow<{ actor: string; converted: unknown }>(funnelCorrelationActorsSql(query, ctx, {}, null), (row) => actors.push({ actor: row.actor, converted: Boolean(Number(row.converted)) }));
      for (let i = 0; i < actors.length; i += PROPERTY_BATCH) {
        const batch = actors.slice(i, i + PROPERTY_BATCH);
        const properties = await this.repository.actorProperties(ctx.projectId, query.aggregationGroupTypeIndex, batch.map((a) => a.actor));
        for (const { actor, converted } of batch) tally.add(propertyCandidates(properties.get(actor) ?? {}, options), converted);
      }
      return tally.result();
    }
    const stepNames = new Set(query.series.map((s) => s.event));
    const excluded = new Set(options.excludeEventNames);
    const read: FunnelReadOptions = { withNames: true, propertiesOf: options.eventNames };
    await this.forEachSpan(query, ctx, read, (row, span) => {
      const candidates = eventsInSpan(row.times, span, (i) => {
        const name = row.names?.[i] ?? '';
        if (stepNames.has(name) || excluded.has(name) || !options.eventNames.includes(name)) return null;
        return Object.entries(row.properties?.[i] ?? {})
          .filter(([key]) => !options.excludeEventPropertyNames.includes(key))
          .map(([key, value]) => `${name}::${key}::${propertyText(value)}`);
      });
      tally.add(candidates.flat(), span.converted);
    });
    // Event properties are many and thin: a value needs more than two actors to be shown.
    return tally.result(2);
  }

  /** One page of a row's actors, in actor order: the engine orders them and hands over the page alone. */
  async actors(query: InsightQuery, selection: CorrelationActorsSelection, ctx: SqlContext): Promise<ActorPage> {
    const read = selection.entity ? { marked: selection.entity } : { extraFilter: selection.propertyValues };
    const ids = await this.repository.actorIds(funnelCorrelationActorsSql(query, ctx, read, selection.converted, selection.offset + selection.limit));
    return actorPage(ids, query.aggregationGroupTypeIndex, selection);
  }

  /** Each actor who entered the funnel, with the span of their funnel (event property correlation, evaluated here). */
  private forEachSpan(query: InsightQuery, ctx: SqlContext, read: FunnelReadOptions, visit: (row: CorrelationRow, span: ActorFunnelSpan) => void): Promise<void> {
    const spec: FunnelSpec = funnelSpecOf(query);
    const rangeEnd = query.range.to.toMillis();
    return this.repository.forEachRow<CorrelationRow>(funnelEventsSql(query, ctx, read), (row) => {
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
