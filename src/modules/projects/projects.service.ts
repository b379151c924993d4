import { parsePathCleaningRules, PathCleaningError } from '../../common/validation/path-cleaning';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { UserPrincipal } from '../../common/auth/principal';
import { generateProjectApiKey } from '../../common/crypto/tokens';
import { ApiError } from '../../common/errors/api-error';
import { buildPage, Page, PageRequest } from '../../common/http/pagination';
import { MembershipLevel } from '../organizations/organization-membership.entity';
import { OrganizationsService } from '../organizations/organizations.service';
import type { CreateProjectDto, ProjectDto, UpdateProjectDto } from './dto/project.dto';
import { parsePropertyFilters, PropertyFilterError } from '../../kernel/property-filters';
import { projectJson } from './project.presenter';
import { ProjectEntity } from './project.entity';
import { ProjectChanges, ProjectsRepository } from './projects.repository';

interface CachedToken {
  projectId: number | null;
  expiresAt: number;
}

/** How long a token → project answer is reused on the hot public paths. Rotation is visible after this. */
const TOKEN_CACHE_MS = 10_000;
/** Unknown tokens are remembered briefly: enough to shield the database, short enough for new projects. */
const UNKNOWN_TOKEN_CACHE_MS = 2_000;
const TOKEN_CACHE_MAX = 10_000;

@Injectable()
export class ProjectsService {
  private readonly flagsListeners: Array<(projectId: number) => void> = [];
  private readonly tokenCache = new Map<string, CachedToken>();
  private readonly ingestedProjects = new Set<number>();

  constructor(
    private readonly projects: ProjectsRepository,
    private readonly organizations: OrganizationsService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  findById(id: number): Promise<ProjectEntity | null> {
    return this.projects.findById(id);
  }

  /** Project id for a public project API key, from a short-lived in-process cache. */
  async projectIdForToken(token: string): Promise<number | null> {
    const now = Date.now();
    const cached = this.tokenCache.get(token);
    if (cached && cached.expiresAt > now) return cached.projectId;
    let project: ProjectEntity | null;
    try {
      project = await this.projects.findByApiToken(token);
    } catch (error) {
      // Database unreachable: a key we knew a moment ago still counts (the worker re-checks it).
      if (cached) return cached.projectId;
      throw error;
    }
    if (this.tokenCache.size >= TOKEN_CACHE_MAX) this.tokenCache.clear();
    this.tokenCache.set(token, { projectId: project?.id ?? null, expiresAt: now + (project ? TOKEN_CACHE_MS : UNKNOWN_TOKEN_CACHE_MS) });
    return project?.id ?? null;
  }

  /** The projects of the user's organizations (a key limited to some projects never gets here: the guard refuses it). */
  async pageForUser(principal: UserPrincipal, page: PageRequest, url: URL): Promise<Page<ProjectDto>> {
    const memberships = await this.organizations.membershipsOf(principal.user.id);
    const levels = new Map(memberships.map((m) => [m.organization.id, m.level]));
    const { rows, count } = await this.projects.pageForOrganizations([...levels.keys()], page.limit, page.offset);
    const results = rows.map((project) => projectJson(project, levels.get(project.organizationId) ?? null));
    return buildPage(url, page, results, count);
  }

  async describeForUser(principal: UserPrincipal, project: ProjectEntity): Promise<ProjectDto> {
    return projectJson(project, await this.organizations.membershipLevel(principal.user.id, project.organizationId));
  }

  /** New projects go into the caller's current organization; only its admins may add one. */
  async createForUser(principal: UserPrincipal, dto: CreateProjectDto): Promise<ProjectDto> {
    const organizationId = principal.user.currentOrganizationId;
    if (!organizationId) throw ApiError.validation('You need to belong to an organization.');
    const level = await this.requireAdmin(principal, organizationId);
    const created = await this.dataSource.transaction((em) =>
      this.create(em, organizationId, dto.name, { timezone: dto.timezone, appUrls: dto.app_urls }),
    );
    return projectJson(created, level);
  }

  async updateForUser(principal: UserPrincipal, project: ProjectEntity, dto: UpdateProjectDto): Promise<ProjectDto> {
    const level = await this.requireAdmin(principal, project.organizationId);
    if (dto.test_account_filters !== undefined) checkTestAccountFilters(dto.test_account_filters);
    if (dto.path_cleaning_filters !== undefined) checkPathCleaningFilters(dto.path_cleaning_filters);
    const updated = await this.projects.update(project.id, {
      name: dto.name, timezone: dto.timezone, appUrls: dto.app_urls, testAccountFilters: dto.test_account_filters, pathCleaningFilters: dto.path_cleaning_filters,
    });
    if (!updated) throw ApiError.notFound();
    return projectJson(updated, level);
  }

  private async requireAdmin(principal: UserPrincipal, organizationId: string): Promise<MembershipLevel> {
    const level = await this.organizations.membershipLevel(principal.user.id, organizationId);
    if (level === null || level < MembershipLevel.Admin) {
      throw ApiError.permissionDenied('Your organization access level is insufficient.');
    }
    return level;
  }

  /** Flags the project as having received events (`ingested_event`), once per process. */
  async markIngested(projectId: number): Promise<void> {
    if (this.ingestedProjects.has(projectId)) return;
    await this.projects.markIngested(projectId);
    this.ingestedProjects.add(projectId);
  }

  listForOrganization(organizationId: string): Promise<ProjectEntity[]> {
    return this.projects.listForOrganization(organizationId);
  }

  listAll(): Promise<ProjectEntity[]> {
    return this.projects.listAll();
  }

  /** A new project with a fresh project API key unless one is given (INIT_PROJECT_API_KEY). */
  create(em: EntityManager, organizationId: string, name: string, options: { apiToken?: string } & ProjectChanges = {}): Promise<ProjectEntity> {
    const { apiToken, ...settings } = options;
    return this.projects.create(em, organizationId, name, apiToken ?? generateProjectApiKey(), settings);
  }

  update(id: number, changes: ProjectChanges): Promise<ProjectEntity | null> {
    return this.projects.update(id, changes);
  }

  /** Flag evaluation caches watch this version; every flag or cohort write bumps it. */
  bumpFlagsVersion(em: EntityManager, projectId: number): Promise<void> {
    return this.projects.bumpFlagsVersion(em, projectId);
  }

  /**
   * Called after a flag-affecting transaction commits: caches in this process reload at once, so a
   * script that writes a flag and then evaluates it sees its write. Other processes poll the version.
   */
  flagsChanged(projectId: number): void {
    for (const listener of this.flagsListeners) listener(projectId);
  }

  onFlagsChanged(listener: (projectId: number) => void): void {
    this.flagsListeners.push(listener);
  }

  flagsVersions(projectIds: number[]): Promise<Map<number, string>> {
    return this.projects.flagsVersions(projectIds);
  }

  /** Issues a new project API key; the old one stops working (after the token cache expires elsewhere). */
  async rotateApiToken(id: number): Promise<string> {
    const project = await this.projects.findById(id);
    const token = generateProjectApiKey();
    await this.projects.setApiToken(id, token);
    if (project) this.tokenCache.delete(project.apiToken);
    return token;
  }
}

/** Test-account filters must parse as the property filters insights will apply. */
function checkTestAccountFilters(filters: unknown[]): void {
  try {
    parsePropertyFilters(JSON.stringify(filters), 'event');
  } catch (error) {
    if (error instanceof PropertyFilterError) throw ApiError.validation(`test_account_filters: ${error.detail}`, 'test_account_filters');
    throw error;
  }
}

/** Path cleaning rules must compile, so that no path insight fails on them later. */
function checkPathCleaningFilters(rules: unknown[]): void {
  try {
    parsePathCleaningRules(rules);
  } catch (error) {
    if (error instanceof PathCleaningError) throw ApiError.validation(`path_cleaning_filters ${error.message}.`, 'path_cleaning_filters');
    throw error;
  }
}
