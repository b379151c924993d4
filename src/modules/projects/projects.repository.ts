import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { ProjectEntity } from './project.entity';

export interface ProjectChanges {
  name?: string;
  timezone?: string;
  appUrls?: string[];
  testAccountFilters?: Array<Record<string, unknown>>;
  pathCleaningFilters?: Array<Record<string, unknown>>;
}

@Injectable()
export class ProjectsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  findById(id: number): Promise<ProjectEntity | null> {
    return this.dataSource.getRepository(ProjectEntity).findOneBy({ id });
  }

  findByApiToken(apiToken: string): Promise<ProjectEntity | null> {
    return this.dataSource.getRepository(ProjectEntity).findOneBy({ apiToken });
  }

  /** Projects of the given organizations, a page of them. */
  async pageForOrganizations(organizationIds: string[], limit: number, offset: number): Promise<{ rows: ProjectEntity[]; count: number }> {
    if (organizationIds.length === 0) return { rows: [], count: 0 };
    const query = this.dataSource
      .getRepository(ProjectEntity)
      .createQueryBuilder('p')
      .where('p.organization_id = ANY(:organizationIds)', { organizationIds })
      .orderBy('p.id', 'ASC');
    const [rows, count] = await query.take(limit).skip(offset).getManyAndCount();
    return { rows, count };
  }

  listForOrganization(organizationId: string): Promise<ProjectEntity[]> {
    return this.dataSource.getRepository(ProjectEntity).find({ where: { organizationId }, order: { id: 'ASC' } });
  }

  listAll(): Promise<ProjectEntity[]> {
    return this.dataSource.getRepository(ProjectEntity).find({ order: { id: 'ASC' } });
  }

  create(em: EntityManager, organizationId: string, name: string, apiToken: string, settings: ProjectChanges = {}): Promise<ProjectEntity> {
    const project = em.create(ProjectEntity, {
      uuid: randomUUID(),
      organizationId,
      name,
      apiToken,
      timezone: settings.timezone ?? 'UTC',
      appUrls: settings.appUrls ?? [],
      testAccountFilters: [],
      pathCleaningFilters: [],
      ingestedEvent: false,
    });
    return em.save(project);
  }

  async update(id: number, changes: ProjectChanges): Promise<ProjectEntity | null> {
    const set: Partial<Pick<ProjectEntity, 'name' | 'timezone' | 'appUrls'>> = {};
    if (changes.name !== undefined) set.name = changes.name;
    if (changes.timezone !== undefined) set.timezone = changes.timezone;
    if (changes.appUrls !== undefined) set.appUrls = changes.appUrls;
    if (Object.keys(set).length > 0) await this.dataSource.getRepository(ProjectEntity).update({ id }, set);
    // jsonb lists of objects, written as JSON (TypeORM's partial-entity types do not take them).
    if (changes.pathCleaningFilters !== undefined) {
      await this.dataSource.query('UPDATE project SET path_cleaning_filters = $2::jsonb, updated_at = now() WHERE id = $1', [id, JSON.stringify(changes.pathCleaningFilters)]);
    }
    if (changes.testAccountFilters !== undefined) {
      await this.dataSource.query('UPDATE project SET test_account_filters = $2::jsonb, updated_at = now() WHERE id = $1', [id, JSON.stringify(changes.testAccountFilters)]);
    }
    return this.findById(id);
  }

  async markIngested(id: number): Promise<void> {
    await this.dataSource.query('UPDATE project SET ingested_event = true WHERE id = $1 AND NOT ingested_event', [id]);
  }

  /** Inside the writer's transaction, so the new version is visible together with the change. */
  async bumpFlagsVersion(em: EntityManager, id: number): Promise<void> {
    await em.query('UPDATE project SET flags_version = flags_version + 1 WHERE id = $1', [id]);
  }

  /** Current flag versions of the given projects (evaluation caches poll this). */
  async flagsVersions(ids: number[]): Promise<Map<number, string>> {
    const rows: Array<{ id: number; flags_version: string }> = await this.dataSource.query(
      'SELECT id, flags_version FROM project WHERE id = ANY($1::int[])',
      [ids],
    );
    return new Map(rows.map((row) => [row.id, String(row.flags_version)]));
  }

  async setApiToken(id: number, apiToken: string): Promise<void> {
    await this.dataSource.getRepository(ProjectEntity).update({ id }, { apiToken });
  }
}
