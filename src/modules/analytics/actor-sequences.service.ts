import { Injectable } from '@nestjs/common';
import { AnalyticsRepository } from './analytics.repository';
import { funnelSequences, FunnelSequence, pathSequences } from './columnar/columnar-sequences';
import { ColumnarStore } from './columnar/columnar-store.service';
import { columnarFunnel, columnarPaths, personBreakdownKey } from './columnar/columnar-support';
import type { InsightQuery } from './model/insight-query';
import type { SqlContext } from './sql/event-scope.sql';
import { FunnelReadOptions, funnelEventsSql } from './sql/funnel.sql';
import { pathEventsSql } from './sql/paths.sql';

export type PathSequence = { actor: string; times: number[]; items: Array<string | null> };

/**
 * Each actor's events in time order, one actor at a time, for funnels, correlation and paths: from the
 * in-memory columns when they hold what the read needs, from PostgreSQL (a cursor) otherwise. Both give
 * the same rows, so the pure evaluation in model/ never knows which answered.
 */
@Injectable()
export class ActorSequencesService {
  constructor(
    private readonly repository: AnalyticsRepository,
    private readonly store: ColumnarStore,
  ) {}

  async forEachFunnelActor<R extends FunnelSequence>(query: InsightQuery, ctx: SqlContext, options: FunnelReadOptions, visit: (row: R) => void): Promise<void> {
    const read = await this.store.readIf(columnarFunnel(query, ctx, options), ctx.projectId, { property: personBreakdownKey(query) }, async ({ columns, property }) => {
      await funnelSequences(columns, query, options, property, (row) => visit(row as R));
      return true;
    });
    if (!read) await this.repository.forEachRow<R>(funnelEventsSql(query, ctx, options), visit);
  }

  async forEachPathActor(query: InsightQuery, ctx: SqlContext, visit: (row: PathSequence) => void): Promise<void> {
    const read = await this.store.readIf(columnarPaths(query, ctx), ctx.projectId, {}, async ({ columns }) => {
      await pathSequences(columns, query, visit);
      return true;
    });
    if (!read) await this.repository.forEachRow<PathSequence>(pathEventsSql(query, ctx), visit);
  }
}
