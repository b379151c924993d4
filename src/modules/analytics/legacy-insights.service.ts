import { Injectable } from '@nestjs/common';
import { DateTime } from 'luxon';
import type { ProjectEntity } from '../projects/project.entity';
import { InsightsService } from './insights.service';
import { DEFAULT_BREAKDOWN_LIMIT } from './model/insight-query';
import { lifecycleSelection, stickinessSelection, targetSeries, trendsSelection } from './parsers/actors-request.parser';
import { booleanValue, FilterInput } from './parsers/filter-values';
import { actorsReply, cachedEnvelope, paginatedUrl, plainActorsReply, replyInput } from './presenters/actors-page.presenter';
import { correlationActorsSelection, correlationOptions, isCorrelationRequest } from './parsers/funnel-correlation.parser';
import { funnelActorsSelection } from './parsers/funnel-filter.parser';
import { pathActorsSelection } from './parsers/path-filter.parser';
import { retentionActorsSelection } from './parsers/retention-filter.parser';
import { pathEdges } from './presenters/path.presenter';
import { retentionPersonsRows, retentionTable } from './presenters/retention.presenter';
import { correlationNextUrl, correlationResult } from './presenters/correlation.presenter';
import { legacyFunnelResult } from './presenters/funnel.presenter';
import { legacyResult } from './presenters/legacy-insight.presenter';

/** The legacy door: `/insights/trend/` and the persons endpoints, with PostHog's reply envelopes. */
@Injectable()
export class LegacyInsightsService {
  constructor(private readonly insights: InsightsService) {}

  async trend(project: ProjectEntity, input: FilterInput, url: URL) {
    const query = await this.insights.parseLegacy(project, input);
    const { result } = await this.insights.compute(project, query, booleanValue(input, 'refresh'));
    const limit = query.breakdown?.kind === 'property' ? query.breakdown.limit : DEFAULT_BREAKDOWN_LIMIT;
    return {
      result: legacyResult(query, result.value, { projectId: project.id, input }),
      next: result.value.hasMore ? paginatedUrl(url, query.breakdownOffset, limit) : null,
      ...cachedEnvelope(project, result),
    };
  }

  async funnel(project: ProjectEntity, input: FilterInput) {
    const query = await this.insights.parseFunnel(project, input);
    const result = await this.insights.computeFunnel(project, query, booleanValue(input, 'refresh'));
    return { result: legacyFunnelResult(query, result.value, { projectId: project.id, input }), ...cachedEnvelope(project, result) };
  }

  async paths(project: ProjectEntity, input: FilterInput) {
    const query = await this.insights.parsePaths(project, input);
    const result = await this.insights.computePaths(project, query, booleanValue(input, 'refresh'));
    return { result: pathEdges(result.value), ...cachedEnvelope(project, result) };
  }

  /** The persons whose paths start at, end at, pass through (an edge) or drop off at the given keys. */
  async pathPersons(project: ProjectEntity, input: FilterInput, url: URL) {
    const query = await this.insights.parsePaths(project, input);
    const selection = pathActorsSelection(input);
    const answer = await this.insights.pathActorsOf(project, query, selection);
    return actorsReply(replyInput(answer, url, selection), new Date());
  }

  async retention(project: ProjectEntity, input: FilterInput) {
    const query = await this.insights.parseRetention(project, input, 'legacy');
    const result = await this.insights.computeRetention(project, query, booleanValue(input, 'refresh'));
    return { result: retentionTable(query, result.value, { projectId: project.id, input }), ...cachedEnvelope(project, result) };
  }

  /** A cohort's persons with their appearances, most appearances first (PostHog's `actors_in_period`). */
  async retentionPersons(project: ProjectEntity, input: FilterInput, url: URL) {
    const query = await this.insights.parseRetention(project, input, 'legacy');
    const selection = retentionActorsSelection(query, input);
    const { page, people, appearances } = await this.insights.retentionActorsOf(project, query, selection);
    return {
      result: retentionPersonsRows(people, appearances),
      next: page.full ? paginatedUrl(url, selection.offset, selection.limit) : null,
      missing_persons: page.actors.length - people.length,
    };
  }

  async correlation(project: ProjectEntity, input: FilterInput) {
    const query = await this.insights.parseFunnel(project, input);
    const options = correlationOptions(input);
    const result = await this.insights.computeCorrelation(project, query, options, booleanValue(input, 'refresh'));
    return { result: correlationResult(query, result.value, options, { projectId: project.id, input }), last_refresh: result.lastRefresh.toISOString(), is_cached: result.isCached };
  }

  /** The persons behind one correlation row (also reached through `persons/funnel/` with a row's parameters). */
  async correlationPersons(project: ProjectEntity, input: FilterInput, url: URL) {
    const query = await this.insights.parseFunnel(project, input);
    const selection = correlationActorsSelection(input);
    const answer = await this.insights.correlationActorsOf(project, query, selection);
    const reply = actorsReply(replyInput(answer, url, selection), new Date());
    return { ...reply, next: answer.page.full ? correlationNextUrl(url, selection.offset, selection.limit) : null };
  }

  /** The persons of one funnel step: reached it (`funnel_step` > 0) or dropped off right before it (< 0). */
  async funnelPersons(project: ProjectEntity, input: FilterInput, url: URL) {
    if (isCorrelationRequest(input)) return this.correlationPersons(project, input, url);
    const query = await this.insights.parseFunnel(project, input);
    const selection = funnelActorsSelection(query, input, DateTime.now());
    const answer = await this.insights.funnelActorsOf(project, query, selection);
    return actorsReply(replyInput(answer, url, selection), new Date());
  }

  async trendPersons(project: ProjectEntity, input: FilterInput, url: URL) {
    const query = targetSeries(await this.insights.parseLegacy(project, input, 'trends'), input);
    const selection = trendsSelection(query, input);
    const answer = await this.insights.actorsOf(project, query, selection);
    return actorsReply(replyInput(answer, url, selection), new Date());
  }

  async stickinessPersons(project: ProjectEntity, input: FilterInput, url: URL) {
    const query = targetSeries(await this.insights.parseLegacy(project, input, 'stickiness'), input);
    const selection = stickinessSelection(query, input);
    const answer = await this.insights.actorsOf(project, query, selection);
    return plainActorsReply(replyInput(answer, url, selection));
  }

  /** Lifecycle uses the first series unless `entity_*` picks another. */
  async lifecyclePersons(project: ProjectEntity, input: FilterInput, url: URL) {
    const query = targetSeries(await this.insights.parseLegacy(project, input, 'lifecycle'), input, true);
    const selection = lifecycleSelection(query, input, DateTime.now());
    const answer = await this.insights.actorsOf(project, query, selection);
    return plainActorsReply(replyInput(answer, url, selection));
  }
}
