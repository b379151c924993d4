import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import type { UserPrincipal } from '../../common/auth/principal';
import { ApiError } from '../../common/errors/api-error';
import type { ProjectEntity } from '../projects/project.entity';
import { ActivityChange, changesBetween } from '../activity-logs/activity-changes';
import { ActivityLogsService } from '../activity-logs/activity-logs.service';
import type { PersonDto } from './dto/person.dto';
import { BulkDeleteRequest, bulkDeleteSummary, BulkDeleteSummary } from './person-bulk-delete';
import { PersonManagementRepository } from './person-management.repository';
import { personName, PersonView } from './person.presenter';
import { PersonQueriesService } from './person-queries.service';
import type { PersonDeleteOptions, PersonRef } from './person-requests';

export const PERSON_SCOPE = 'Person';

interface WriteContext {
  principal: UserPrincipal;
  project: ProjectEntity;
}

/**
 * Person writes of the management API. Each runs in one transaction with the person's
 * row locked, so it never interleaves with ingestion's updates of the same person; flag evaluation
 * reads `person.properties`, so a write is visible to `/decide/` as soon as it commits.
 */
@Injectable()
export class PersonWritesService {
  constructor(
    private readonly persons: PersonManagementRepository,
    private readonly queries: PersonQueriesService,
    private readonly activity: ActivityLogsService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /** A new person whose uuid is also its distinct id. */
  async create(ctx: WriteContext, properties: Record<string, unknown>): Promise<PersonDto> {
    const uuid = randomUUID();
    const id = await this.dataSource.transaction(async (em) => {
      const id = await this.persons.insert(em, ctx.project.id, uuid, properties, uuid);
      const person = { id, properties };
      await this.log(em, ctx, person, 'created', changesBetween(PERSON_SCOPE, {}, { properties }, ['properties']), [uuid]);
      return id;
    });
    return this.queries.describe(ctx.project.id, { id });
  }

  /** `$set` semantics: listed keys overwritten, the others kept. */
  mergeProperties(ctx: WriteContext, ref: PersonRef, properties: Record<string, unknown>): Promise<PersonDto> {
    return this.updateProperties(ctx, ref, 'updated', (current) => ({ ...current, ...properties }));
  }

  unsetProperty(ctx: WriteContext, ref: PersonRef, key: string): Promise<PersonDto> {
    return this.updateProperties(ctx, ref, 'delete_property', (current) => {
      const next = { ...current };
      delete next[key];
      return next;
    });
  }

  setProperty(ctx: WriteContext, ref: PersonRef, key: string, value: unknown): Promise<PersonDto> {
    return this.updateProperties(ctx, ref, 'updated', (current) => ({ ...current, [key]: value }));
  }

  private async updateProperties(
    ctx: WriteContext,
    ref: PersonRef,
    activity: string,
    change: (current: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<PersonDto> {
    const id = await this.resolve(ctx.project.id, ref);
    await this.dataSource.transaction(async (em) => {
      const person = await this.lockOrFail(em, ctx.project.id, id);
      const properties = change(person.properties);
      const changes = changesBetween(PERSON_SCOPE, { properties: person.properties }, { properties }, ['properties']);
      if (changes.length === 0) return;
      await this.persons.setProperties(em, ctx.project.id, id, properties);
      await this.log(em, ctx, { id, properties }, activity, changes, person.distinctIds);
    });
    return this.queries.describe(ctx.project.id, { id });
  }

  /**
   * `deleteEvents` also removes the events of its distinct ids (their uuids stay claimed, so retries stay
   * out); `keepPerson` keeps the person, so only its events go.
   */
  async delete(ctx: WriteContext, ref: PersonRef, options: PersonDeleteOptions): Promise<void> {
    const id = await this.resolve(ctx.project.id, ref);
    await this.dataSource.transaction(async (em) => {
      const person = await this.lockOrFail(em, ctx.project.id, id);
      await this.deleteLocked(em, ctx, [person], options);
    });
  }

  /**
   * `persons/bulk_delete/`: what DELETE does, for every person found, in one transaction (all or
   * nothing). Ids that name no person of this project (unknown, or another project's) are not found.
   */
  async bulkDelete(ctx: WriteContext, request: BulkDeleteRequest): Promise<BulkDeleteSummary> {
    return this.dataSource.transaction(async (em) => {
      const persons = await this.persons.lockForDeletion(em, ctx.project.id, request.selector);
      await this.deleteLocked(em, ctx, persons, request);
      return bulkDeleteSummary(request, persons.length, request.keepPerson ? 0 : persons.length);
    });
  }

  /** Persons already locked by this transaction: their events if asked, then the persons and one log entry each. */
  private async deleteLocked(em: EntityManager, ctx: WriteContext, persons: PersonView[], options: PersonDeleteOptions) {
    if (options.deleteEvents) await this.persons.deleteEvents(em, ctx.project.id, persons.flatMap((person) => person.distinctIds));
    if (options.keepPerson) return;
    await this.persons.delete(em, ctx.project.id, persons.map((person) => person.id));
    for (const person of persons) await this.log(em, ctx, person, 'deleted', null, person.distinctIds);
  }

  /** Every distinct id but the main one (default: the first added) moves to a new person of its own. */
  async split(ctx: WriteContext, ref: PersonRef, mainDistinctId: string | undefined): Promise<PersonDto> {
    const id = await this.resolve(ctx.project.id, ref);
    await this.dataSource.transaction(async (em) => {
      const person = await this.lockOrFail(em, ctx.project.id, id);
      const main = mainDistinctId ?? person.distinctIds[0];
      if (!person.distinctIds.includes(main)) throw ApiError.validation('main_distinct_id is not a distinct id of this person.', 'main_distinct_id');
      const moved = person.distinctIds.filter((distinctId) => distinctId !== main);
      for (const distinctId of moved) await this.persons.moveToNewPerson(em, ctx.project.id, distinctId, randomUUID());
      const change: ActivityChange = { type: PERSON_SCOPE, action: 'changed', field: 'distinct_ids', before: person.distinctIds, after: [main] };
      if (moved.length > 0) await this.log(em, ctx, person, 'split_person', [change], [main]);
    });
    return this.queries.describe(ctx.project.id, { id });
  }

  private async resolve(projectId: number, ref: PersonRef): Promise<number> {
    return 'id' in ref ? ref.id : (await this.queries.view(projectId, ref)).id;
  }

  private async lockOrFail(em: EntityManager, projectId: number, id: number): Promise<PersonView> {
    const person = await this.persons.lock(em, projectId, id);
    if (!person) throw ApiError.notFound();
    return person;
  }

  private log(
    em: EntityManager,
    ctx: WriteContext,
    person: Pick<PersonView, 'id' | 'properties'>,
    activity: string,
    changes: ActivityChange[] | null,
    distinctIds: string[],
  ) {
    return this.activity.recordChange(em, ctx.project, ctx.principal.user.id, { scope: PERSON_SCOPE, itemId: person.id, activity, changes, name: personName(person, distinctIds) });
  }
}

