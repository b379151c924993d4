import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error';
import { PageRequest, withQueryParams } from '../../common/http/pagination';
import { BoundedReads } from '../../database/bounded-reads';
import { inCohort } from '../../kernel/cohort-match';
import { withFilterErrors } from '../events/filter-query-errors';
import { cohortIdsOf } from '../../kernel/property-filters';
import type { PersonCohortListDto, PersonDto, PersonPageDto, PersonPropertyCountDto } from './dto/person.dto';
import { PersonManagementRepository } from './person-management.repository';
import { drfTimestamp, personJson, PersonView } from './person.presenter';
import { PersonListFilters, PersonRef } from './person-requests';

const MAX_VALUES = 100;

/** What a caller can do when a read runs past MANAGEMENT_QUERY_TIMEOUT_MS. */
const LIST_ADVICE = 'narrow the search or the filters, or ask for fewer persons with `limit`';
/** Property values and names read every person of the project whatever the parameters: nothing to narrow. */
const SCAN_ADVICE = 'try again when the database is less busy, or raise MANAGEMENT_QUERY_TIMEOUT_MS';

@Injectable()
export class PersonQueriesService {
  constructor(
    private readonly persons: PersonManagementRepository,
    private readonly reads: BoundedReads,
  ) {}

  /**
   * Newest first with limit/offset and no count; `next` whenever the page is full (PostHog's person
   * list, which may hand out one last empty page rather than count).
   */
  async page(projectId: number, filters: PersonListFilters, page: PageRequest, url: URL): Promise<PersonPageDto> {
    const cohortIds = cohortIdsOf(filters.properties);
    const cohorts = new Map((cohortIds.length ? await this.persons.liveCohorts(projectId) : []).map((c) => [c.id, c]));
    const query = { ...filters, cohorts, now: new Date() };
    const rows = await withFilterErrors(() => this.persons.list(this.reads.reader(LIST_ADVICE), projectId, query, page.limit, page.offset));
    const { limit, offset } = page;
    return {
      next: rows.length >= limit ? withQueryParams(url, { limit, offset: offset + limit }) : null,
      previous: offset > 0 ? withQueryParams(url, { limit, offset: offset - limit > 0 ? offset - limit : null }) : null,
      results: rows.map(personJson),
    };
  }

  async view(projectId: number, ref: PersonRef): Promise<PersonView> {
    const id = 'id' in ref ? ref.id : await this.persons.findIdByUuid(projectId, ref.uuid);
    const person = id === null ? null : await this.persons.findById(projectId, id);
    if (!person) throw ApiError.notFound();
    return person;
  }

  /** The persons behind an analytics data point; ids that no longer exist are left out. */
  viewsByIds(projectId: number, ids: number[]): Promise<PersonView[]> {
    return this.persons.findByIds(projectId, ids);
  }

  async describe(projectId: number, ref: PersonRef): Promise<PersonDto> {
    return personJson(await this.view(projectId, ref));
  }

  /** Most common values of one person property; values read as text (`565`, `true`, JSON for objects). */
  values(projectId: number, key: string | undefined, contains: string | undefined): Promise<PersonPropertyCountDto[]> {
    if (!key) return Promise.resolve([]);
    return this.reads.run(SCAN_ADVICE, (em) => this.persons.propertyValues(em, projectId, key, contains ?? null, MAX_VALUES));
  }

  properties(projectId: number): Promise<PersonPropertyCountDto[]> {
    return this.reads.run(SCAN_ADVICE, (em) => this.persons.propertyNames(em, projectId));
  }

  /** Static cohorts listing the person and property cohorts whose definition matches it now. */
  async cohorts(projectId: number, ref: PersonRef): Promise<PersonCohortListDto> {
    const person = await this.view(projectId, ref);
    const [live, staticMemberships] = await Promise.all([this.persons.liveCohorts(projectId), this.persons.staticCohortIds(projectId, person.id)]);
    const context = { cohorts: new Map(live.map((c) => [c.id, c])), staticMemberships, now: new Date() };
    const results = live
      .filter((cohort) => inCohort(cohort.id, person.properties, context))
      .map((cohort) => ({
        id: cohort.id,
        name: cohort.name,
        description: cohort.description,
        is_static: cohort.isStatic,
        filters: cohort.filters,
        deleted: false,
        created_at: drfTimestamp(cohort.createdAt),
      }));
    return { results };
  }
}
