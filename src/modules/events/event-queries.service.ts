import { Injectable, Logger } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error';
import { PageRequest } from '../../common/http/pagination';
import { UUID_PATTERN } from '../../common/validation/patterns';
import { EventDefinitionsService } from '../event-definitions/event-definitions.service';
import type { EventDto, EventPageDto, EventValueDto } from './dto/event.dto';
import { EventQueriesRepository } from './event-queries.repository';
import { eventJson, EventRow } from './event.presenter';
import { EventListFilters } from './event-requests';
import { withFilterErrors } from './filter-query-errors';
import { cohortIdsOf } from './property-filters';

/** PostHog's values endpoint: at most 10 values, from the latest events of the past week. */
const VALUES_LIMIT = 10;
const VALUES_SAMPLE = 10_000;

@Injectable()
export class EventQueriesService {
  private readonly logger = new Logger(EventQueriesService.name);

  constructor(
    private readonly events: EventQueriesRepository,
    private readonly definitions: EventDefinitionsService,
  ) {}

  /**
   * Newest first. `next` keeps every parameter and moves the keyset cursor (`before` = the last
   * timestamp, `before_id` = the last uuid), so paging never scans what earlier pages returned.
   */
  async page(projectId: number, filters: EventListFilters, page: PageRequest, url: URL): Promise<EventPageDto> {
    const rows = await this.rows(projectId, filters, page);
    const more = rows.length > page.limit;
    const results = await this.present(projectId, rows.slice(0, page.limit));
    if (filters.event !== undefined) this.countUsage(projectId, [filters.event]);
    let next: string | null = null;
    if (more) {
      const last = results[results.length - 1];
      const link = new URL(url.toString());
      link.searchParams.delete('offset');
      link.searchParams.set('before', last.timestamp);
      link.searchParams.set('before_id', last.id);
      next = link.toString();
    }
    return { next, results };
  }

  private async rows(projectId: number, filters: EventListFilters, page: PageRequest): Promise<EventRow[]> {
    let personDistinctIds: string[] | undefined;
    if (filters.personRef !== undefined) {
      const ref = filters.personRef;
      if (/^\d{1,15}$/.test(ref)) personDistinctIds = await this.events.distinctIdsOfPerson(projectId, { id: Number(ref) });
      else if (UUID_PATTERN.test(ref)) personDistinctIds = await this.events.distinctIdsOfPerson(projectId, { uuid: ref.toLowerCase() });
      else personDistinctIds = [];
      if (personDistinctIds.length === 0) return [];
    }
    const cohortIds = cohortIdsOf(filters.properties);
    const cohorts = new Map((cohortIds.length ? await this.events.liveCohorts(projectId) : []).map((c) => [c.id, c]));
    return withFilterErrors(() => this.events.list(projectId, { ...filters, personDistinctIds, cohorts, now: new Date() }, page.limit, page.offset));
  }

  async describe(projectId: number, rawId: string): Promise<EventDto> {
    if (!UUID_PATTERN.test(rawId)) throw ApiError.validation('Invalid UUID', null, 'invalid');
    const row = await this.events.findByUuid(projectId, rawId.toLowerCase());
    if (!row) throw ApiError.notFound(`No events exist for event UUID ${rawId}`);
    return (await this.present(projectId, [row]))[0];
  }

  async values(projectId: number, key: string | undefined, events: string[], contains: string | undefined): Promise<EventValueDto[]> {
    if (!key) throw ApiError.validation('You must provide a key');
    if (events.length > 0) this.countUsage(projectId, events);
    const names = await this.events.propertyValues(projectId, key, events, contains ?? null, VALUES_SAMPLE, VALUES_LIMIT);
    return names.map((name) => ({ name }));
  }

  private async present(projectId: number, rows: EventRow[]): Promise<EventDto[]> {
    const persons = await this.events.personSummaries(projectId, [...new Set(rows.map((row) => row.distinct_id))]);
    return rows.map((row) => eventJson(row, persons.get(row.distinct_id)));
  }

  /** `query_usage_30_day` counts these queries; a lost count must never fail or slow the read. */
  private countUsage(projectId: number, names: string[]): void {
    this.definitions.recordQueryUsage(projectId, names).catch((error: unknown) => this.logger.warn({ err: error }, 'could not count event query usage'));
  }
}
