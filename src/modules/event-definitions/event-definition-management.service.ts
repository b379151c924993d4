import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { UserPrincipal } from '../../common/auth/principal';
import { ApiError } from '../../common/errors/api-error';
import { buildPage, Page, PageRequest } from '../../common/http/pagination';
import { parseId, UUID_PATTERN } from '../../common/validation/patterns';
import { BoundedReads } from '../../database/bounded-reads';
import { OrganizationsService } from '../organizations/organizations.service';
import type { ProjectEntity } from '../projects/project.entity';
import type { EventDefinitionDto, UpdateEventDefinitionDto } from './dto/event-definition.dto';
import { DefinitionListFilters, nextVerification, normalizeTags, ownerNotFound } from './event-definition-rules';
import { EventDefinitionQueriesRepository } from './event-definition-queries.repository';
import { eventDefinitionJson } from './event-definition.presenter';

/** What a caller can do when the list runs past MANAGEMENT_QUERY_TIMEOUT_MS. */
const LIST_ADVICE = 'narrow the search or `event_type`, or ask for fewer definitions with `limit`';

@Injectable()
export class EventDefinitionManagementService {
  constructor(
    private readonly definitions: EventDefinitionQueriesRepository,
    private readonly organizations: OrganizationsService,
    private readonly reads: BoundedReads,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async page(projectId: number, filters: DefinitionListFilters, page: PageRequest, url: URL): Promise<Page<EventDefinitionDto>> {
    const { rows, count } = await this.reads.run(LIST_ADVICE, (em) => this.definitions.page(em, projectId, filters, page.limit, page.offset));
    return buildPage(url, page, rows.map(eventDefinitionJson), count);
  }

  async describe(projectId: number, rawId: string): Promise<EventDefinitionDto> {
    const row = UUID_PATTERN.test(rawId) ? await this.definitions.find(projectId, rawId.toLowerCase()) : null;
    if (!row) throw ApiError.notFound();
    return eventDefinitionJson(row);
  }

  /** Fields not sent keep their value; `updated_by` is always the caller (PostHog's enterprise rules for definitions). */
  async update(principal: UserPrincipal, project: ProjectEntity, rawId: string, dto: UpdateEventDefinitionDto): Promise<EventDefinitionDto> {
    if (!UUID_PATTERN.test(rawId)) throw ApiError.notFound();
    const id = rawId.toLowerCase();
    if (dto.owner !== undefined && dto.owner !== null) {
      // An id no user column can hold names no user, as any other unknown id.
      const owner = parseId(dto.owner);
      if (owner === null || (await this.organizations.membershipLevel(owner, project.organizationId)) === null) throw ownerNotFound(dto.owner);
    }
    await this.dataSource.transaction(async (em) => {
      if (!(await this.definitions.lock(em, project.id, id))) throw ApiError.notFound();
      const current = await this.definitions.find(project.id, id, em);
      if (!current) throw ApiError.notFound();
      const verification = nextVerification(
        { verified: current.verified, verifiedAt: current.verified_at, verifiedById: current.verified_by_id },
        dto.verified,
        principal.user.id,
        new Date(),
      );
      await this.definitions.update(em, project.id, id, {
        ownerId: dto.owner === undefined ? current.owner_id : dto.owner,
        description: dto.description === undefined ? current.description : dto.description,
        tags: dto.tags === undefined ? current.tags : normalizeTags(dto.tags),
        ...verification,
        postToChat: dto.post_to_chat ?? current.post_to_chat,
      }, principal.user.id);
    });
    return this.describe(project.id, id);
  }
}
