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
  /** Why a computation failed, where the read goes on without it (a list, a dashboard): PostHog's `query_status`. */
  queryStatus: { error: true; error_message: string } | null;
}

const NONE: InsightResultView = { result: null, lastRefresh: null, isCached: false, cacheTargetAge: null, nextAllowedClientRefresh: null, queryStatus: null };

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
 * process serves what any of them computed. A result is kept under its question and the project settings that change
 * the answer (timezone, test-account filters, path cleaning rules): an edited insight asks a new question and misses.
 * Cohort and action definitions are not in the key: an edited one shows in a result once it is recomputed (stale, or
 * forced), as in PostHog.
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
    await this.checkNode(project, () => insightNode(columns), field);
  }

  /** Refuses a node (as `make` builds it) that could not run, as a 400 on `field`. */
  async checkNode(project: ProjectEntity, make: () => Json | null, field: string): Promise<void> {
    try {
      const node = make();
      if (node) await this.queries.checkInsight(project, node);
    } catch (error) {
      if (error instanceof ApiError && error.status === 400) throw ApiError.validation(`${field}: ${error.detail}`, field);
      throw error;
    }
  }

  /** The result of an insight node (an insight's own, or one a dashboard's filters changed), as `mode` allows. */
  /**
   * `tolerant`: a computation that fails (a query over its time limit, an action or cohort deleted since) leaves this
   * insight without a result and says why in `queryStatus`, instead of failing the whole list or dashboard.
   */
  async resultOf(project: ProjectEntity, node: Json | null, mode: RefreshMode, tolerant = false): Promise<InsightResultView> {
    if (!node) return NONE;
    const key = cacheKey(project, node);
    const staleAfter = staleAfterMs(node);
    let stored = await this.repository.storedResult(project.id, key);
    const computed = mustCompute(mode, stored?.lastRefresh ?? null, staleAfter, new Date());
    if (computed) {
      try {
        const answer = (await this.queries.run(project, { query: node, refresh: true })) as { results: unknown };
        stored = { result: answer.results, lastRefresh: new Date() };
      } catch (error) {
        if (!tolerant || !(error instanceof ApiError)) throw error;
        return { ...NONE, queryStatus: { error: true, error_message: error.detail } };
      }
      await this.repository.storeResult(project.id, key, stored);
    }
    return stored ? view(stored, !computed, staleAfter) : NONE;
  }
}

function view(stored: StoredResult, isCached: boolean, staleAfter: number): InsightResultView {
  const at = stored.lastRefresh.getTime();
  return {
    result: stored.result, lastRefresh: stored.lastRefresh, isCached, cacheTargetAge: new Date(at + staleAfter), nextAllowedClientRefresh: new Date(at + CLIENT_REFRESH_AFTER_MS), queryStatus: null,
  };
}

function cacheKey(project: ProjectEntity, node: Json): string {
  const settings = { timezone: project.timezone, testAccountFilters: project.testAccountFilters, pathCleaningFilters: project.pathCleaningFilters };
  return createHash('sha256').update(JSON.stringify({ node, ...settings })).digest('hex');
}
