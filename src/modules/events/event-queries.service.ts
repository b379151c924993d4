import { Injectable, Logger } from '@nestjs/common';
import { ActionMatcher, actionFilterTrees } from '../actions/action-matcher';
import { ActionsService } from '../actions/actions.service';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { PageRequest } from '../../common/http/pagination';
import { UUID_PATTERN } from '../../common/validation/patterns';
import { BoundedReads } from '../../database/bounded-reads';
import { EventDefinitionsService } from '../event-definitions/event-definitions.service';
import type { EventDto, EventPageDto, EventValueDto } from './dto/event.dto';
import { EventQueriesRepository } from './event-queries.repository';
import { eventJson, EventRow } from './event.presenter';
import { nextPageUrl } from './event-list-order';
import { EventListFilters } from './event-requests';
import { withFilterErrors } from './filter-query-errors';
import { cohortIdsOf } from '../../kernel/property-filters';

/** How events are shown: `includePerson` false leaves `person` null and skips the person lookup. */
export interface EventReadOptions {
  includePerson: boolean;
}

/** PostHog's values endpoint: at most 10 values, from the latest events of the past week. */
const VALUES_LIMIT = 10;
const VALUES_SAMPLE = 10_000;

/** What a caller can do when a read runs past MANAGEMENT_QUERY_TIMEOUT_MS. */
const LIST_ADVICE = 'narrow the filters or the date range (`after`, `before`), or ask for fewer events with `limit`';
const VALUES_ADVICE = 'name the events to look at with `event`';
const RETRIEVE_ADVICE = 'try again when the database is less busy';

@Injectable()
export class EventQueriesService {
  private readonly logger = new Logger(EventQueriesService.name);

  constructor(
    private readonly events: EventQueriesRepository,
    private readonly definitions: EventDefinitionsService,
    private readonly reads: BoundedReads,
    private readonly actions: ActionsService,
  ) {}

  /**
   * Newest first unless `orderBy` says otherwise. `next` keeps every parameter and moves the keyset
   * cursor past the last event, so paging never scans what earlier pages returned.
   */
  async page(projectId: number, filters: EventListFilters, page: PageRequest, url: URL, options: EventReadOptions): Promise<EventPageDto> {
    // A missing action has no events, as PostHog answers it; the action is read before the bounded read opens its connection.
    const action = filters.actionId === undefined ? undefined : await this.actions.liveMatcher(projectId, filters.actionId);
    if (action === null) return { next: null, results: [] };
    const { more, results } = await this.reads.run(LIST_ADVICE, async (em) => {
      const rows = await this.rows(em, projectId, filters, action, page);
      return { more: rows.length > page.limit, results: await this.present(em, projectId, rows.slice(0, page.limit), options) };
    });
    if (filters.event !== undefined) this.countUsage(projectId, [filters.event]);
    const last = results[results.length - 1];
    return { next: more ? nextPageUrl(url, filters.order, last) : null, results };
  }

  private async rows(em: EntityManager, projectId: number, filters: EventListFilters, action: ActionMatcher | undefined, page: PageRequest): Promise<EventRow[]> {
    let personDistinctIds: string[] | undefined;
    if (filters.personRef !== undefined) {
      const ref = filters.personRef;
      if (/^\d{1,15}$/.test(ref)) personDistinctIds = await this.events.distinctIdsOfPerson(em, projectId, { id: Number(ref) });
      else if (UUID_PATTERN.test(ref)) personDistinctIds = await this.events.distinctIdsOfPerson(em, projectId, { uuid: ref.toLowerCase() });
      else personDistinctIds = [];
      if (personDistinctIds.length === 0) return [];
    }
    const readsCohorts = [filters.properties, ...actionFilterTrees(action)].some((node) => cohortIdsOf(node).length > 0);
    const cohorts = new Map((readsCohorts ? await this.events.liveCohorts(em, projectId) : []).map((c) => [c.id, c]));
    const query = { ...filters, action, personDistinctIds, cohorts, now: new Date() };
    return withFilterErrors(() => this.events.list(em, projectId, query, page.limit, page.offset));
  }

  async describe(projectId: number, rawId: string, options: EventReadOptions): Promise<EventDto> {
    if (!UUID_PATTERN.test(rawId)) throw ApiError.validation('Invalid UUID', null, 'invalid');
    const event = await this.reads.run(RETRIEVE_ADVICE, async (em) => {
      const row = await this.events.findByUuid(em, projectId, rawId.toLowerCase());
      return row ? (await this.present(em, projectId, [row], options))[0] : null;
    });
    if (!event) throw ApiError.notFound(`No events exist for event UUID ${rawId}`);
    return event;
  }

  async values(projectId: number, key: string | undefined, events: string[], contains: string | undefined): Promise<EventValueDto[]> {
    if (!key) throw ApiError.validation('You must provide a key');
    if (events.length > 0) this.countUsage(projectId, events);
    const names = await this.reads.run(VALUES_ADVICE, (em) => this.events.propertyValues(em, projectId, key, events, contains ?? null, VALUES_SAMPLE, VALUES_LIMIT));
    return names.map((name) => ({ name }));
  }

  private async present(em: EntityManager, projectId: number, rows: EventRow[], options: EventReadOptions): Promise<EventDto[]> {
    const distinctIds = options.includePerson ? [...new Set(rows.map((row) => row.distinct_id))] : [];
    const persons = await this.events.personSummaries(em, projectId, distinctIds);
    return rows.map((row) => eventJson(row, persons.get(row.distinct_id)));
  }

  /** `query_usage_30_day` counts these queries; a lost count must never fail or slow the read. */
  private countUsage(projectId: number, names: string[]): void {
    this.definitions.recordQueryUsage(projectId, names).catch((error: unknown) => this.logger.warn({ err: error }, 'could not count event query usage'));
  }
}
