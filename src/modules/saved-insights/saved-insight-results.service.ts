import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error';
import { filterToNode } from '../analytics/parsers/filter-to-node';
import { QueryService } from '../analytics/query.service';
import type { ProjectEntity } from '../projects/project.entity';
import { CLIENT_REFRESH_AFTER_MS, mustCompute, RefreshMode, staleAfterMs } from './insight-refresh';
import type { SavedInsightColumns } from './saved-insight-changes';
import { SavedInsightsRepository, StoredResult } from './saved-insights.repository';

type Json = Record<string, unknown>;

/** What a read of an insight shows of its result. */
export interface InsightResultView {
  result: unknown;
  lastRefresh: Date | null;
  isCached: boolean;
  cacheTargetAge: Date | null;
  nextAllowedClientRefresh: Date | null;
}

const NONE: InsightResultView = { result: null, lastRefresh: null, isCached: false, cacheTargetAge: null, nextAllowedClientRefresh: null };

/**
 * The question a saved insight asks, as an insight node: its query's source, or the node its legacy filter stands for
 * (null for an insight that asks nothing yet).
 */
export function insightNode(insight: Pick<SavedInsightColumns, 'query' | 'filters'>): Json | null {
  if (insight.query) return insight.query.source as Json;
  return Object.keys(insight.filters).length > 0 ? filterToNode(insight.filters) : null;
}

/**
 * Saved insights' results, computed by the query API's engine and kept in PostgreSQL (`insight_result`), so every API
 * process serves what any of them computed. A result is kept under its question and what else changes the answer (the
 * project's timezone and test-account filters): an edited insight asks a new question and misses.
 */
@Injectable()
export class SavedInsightResults {
  constructor(
    private readonly queries: QueryService,
    private readonly repository: SavedInsightsRepository,
  ) {}

  /** Refuses a query or filter that could not run, naming which field holds it. */
  async check(project: ProjectEntity, columns: SavedInsightColumns): Promise<void> {
    const field = columns.query ? 'query' : 'filters';
    try {
      const node = insightNode(columns);
      if (node) await this.queries.checkInsight(project, node);
    } catch (error) {
      if (error instanceof ApiError && error.status === 400) throw ApiError.validation(`${field}: ${error.detail}`, field);
      throw error;
    }
  }

  /** The result of an insight node (an insight's own, or one a dashboard's filters changed), as `mode` allows. */
  async resultOf(project: ProjectEntity, node: Json | null, mode: RefreshMode): Promise<InsightResultView> {
    if (!node) return NONE;
    const key = cacheKey(project, node);
    const staleAfter = staleAfterMs(node);
    let stored = await this.repository.storedResult(project.id, key);
    const computed = mustCompute(mode, stored?.lastRefresh ?? null, staleAfter, new Date());
    if (computed) {
      const answer = (await this.queries.run(project, { query: node, refresh: true })) as { results: unknown };
      stored = { result: answer.results, lastRefresh: new Date() };
      await this.repository.storeResult(project.id, key, stored);
    }
    return stored ? view(stored, !computed, staleAfter) : NONE;
  }
}

function view(stored: StoredResult, isCached: boolean, staleAfter: number): InsightResultView {
  const at = stored.lastRefresh.getTime();
  return { result: stored.result, lastRefresh: stored.lastRefresh, isCached, cacheTargetAge: new Date(at + staleAfter), nextAllowedClientRefresh: new Date(at + CLIENT_REFRESH_AFTER_MS) };
}

function cacheKey(project: ProjectEntity, node: Json): string {
  return createHash('sha256').update(JSON.stringify({ node, timezone: project.timezone, testAccountFilters: project.testAccountFilters })).digest('hex');
}
