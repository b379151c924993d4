import { Injectable } from '@nestjs/common';
import { AnalyticsRepository } from './analytics.repository';
import { ActorOutcome, evaluateActor, funnelSpecOf, StepSummary, StepTally, stepSelector } from './model/funnel-evaluation';
import type { FunnelActorsSelection, InsightQuery } from './model/insight-query';
import type { ActorPage } from './model/insight-result';
import type { SqlContext } from './sql/event-scope.sql';
import { funnelEventsSql } from './sql/funnel.sql';

/** Actors read from the cursor at a time: each row holds one actor's events. */
const BATCH_ROWS = 2000;

interface ActorEventsRow {
  actor: string;
  times: number[];
  masks: number[];
}

export interface FunnelResult {
  steps: StepSummary[];
}

/** Funnels: every actor's events evaluated as they stream in, tallied into steps or selected as persons. */
@Injectable()
export class FunnelsService {
  constructor(private readonly repository: AnalyticsRepository) {}

  async steps(query: InsightQuery, ctx: SqlContext): Promise<FunnelResult> {
    const tally = new StepTally(query.series.length);
    await this.forEachActor(query, ctx, (_, outcome) => tally.add(outcome));
    return { steps: tally.steps() };
  }

  /** The actors a persons request selects, in actor order (persons by id, groups by key), one page. */
  async actors(query: InsightQuery, selection: FunnelActorsSelection, ctx: SqlContext): Promise<ActorPage> {
    const selected = stepSelector(selection);
    let ids: string[] = [];
    await this.forEachActor(query, ctx, (actor, outcome) => {
      if (outcome.steps > 0 && selected(outcome.steps)) ids.push(actor);
    });
    const groupTypeIndex = query.aggregationGroupTypeIndex;
    ids = groupTypeIndex === null ? ids.sort((a, b) => Number(a) - Number(b)) : ids.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    if (selection.search) {
      const matching = new Set(await this.repository.actorsMatching(ctx.projectId, groupTypeIndex, ids, selection.search));
      ids = ids.filter((id) => matching.has(id));
    }
    const page = ids.slice(selection.offset, selection.offset + selection.limit);
    return {
      actors: page.map((id) => ({ id, value: null })),
      full: page.length >= selection.limit,
      kind: groupTypeIndex === null ? 'person' : 'group',
      groupTypeIndex,
    };
  }

  private forEachActor(query: InsightQuery, ctx: SqlContext, visit: (actor: string, outcome: ActorOutcome) => void): Promise<void> {
    const spec = funnelSpecOf(query);
    return this.repository.forEachBatch<ActorEventsRow>(funnelEventsSql(query, ctx), BATCH_ROWS, (rows) => {
      for (const row of rows) visit(row.actor, evaluateActor(row, spec));
    });
  }
}
