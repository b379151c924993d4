import { Injectable } from '@nestjs/common';
import { AnalyticsRepository } from './analytics.repository';
import type { InsightQuery } from './model/insight-query';
import type { SqlContext } from './sql/event-scope.sql';
import { FunnelReadOptions, funnelEventsSql } from './sql/funnel.sql';

/** One actor's funnel events in time order: step and exclusion bits, and what the read asked for beside them. */
export interface FunnelSequence {
  actor: string;
  times: number[];
  masks: number[];
  names?: string[];
}

/** Each actor's events in time order, one actor at a time, for what the process evaluates: event-property correlation. */
@Injectable()
export class ActorSequencesService {
  constructor(private readonly repository: AnalyticsRepository) {}

  async forEachFunnelActor<R extends FunnelSequence>(query: InsightQuery, ctx: SqlContext, options: FunnelReadOptions, visit: (row: R) => void): Promise<void> {
    await this.repository.forEachRow<R>(funnelEventsSql(query, ctx, options), visit);
  }
}
