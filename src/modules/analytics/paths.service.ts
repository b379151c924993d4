import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error';
import { AnalyticsRepository } from './analytics.repository';
import { actorPage } from './model/actor-page';
import type { InsightQuery, PathActorsSelection } from './model/insight-query';
import type { ActorPage } from './model/insight-result';
import { PathEdge, reachableEdges } from './model/path-edges';
import type { SqlContext } from './sql/event-scope.sql';
import { pathActorsSql, pathEdgesSql } from './sql/paths.sql';

const SELECTION_KEYS = ['start', 'end', 'dropoff'] as const;

/** Paths, built inside the engine (sql/paths.sql.ts): only the heaviest edges, or one page of actors, leave it. */
@Injectable()
export class PathsService {
  constructor(private readonly repository: AnalyticsRepository) {}

  async edges(query: InsightQuery, ctx: SqlContext): Promise<PathEdge[]> {
    const options = query.paths!;
    const rows = await this.repository.pathEdges(pathEdgesSql(query, ctx));
    const edges = rows.map(({ source, target, value, totalMs }) => ({ source, target, value, averageConversionTime: totalMs / value }));
    return options.minEdgeWeight === null && options.maxEdgeWeight === null ? reachableEdges(edges) : edges;
  }

  /** The actors whose paths hold the selected keys, one page in actor order; a key whose item no path visits is a 400. */
  async actors(query: InsightQuery, selection: PathActorsSelection, ctx: SqlContext): Promise<ActorPage> {
    const { seen, actors } = await this.repository.pathActors(pathActorsSql(query, ctx, selection));
    const missing = SELECTION_KEYS.find((name, bit) => selection[name] !== null && (seen & (1 << bit)) === 0);
    if (missing) throw ApiError.validation(`path_${missing}_key "${selection[missing]}" names an item no path visits: take keys from the insight's edges.`, `path_${missing}_key`);
    return actorPage(actors, query.aggregationGroupTypeIndex, { limit: selection.limit, offset: 0 });
  }
}
