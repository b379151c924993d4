import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AccessResource, OrganizationResourceAccessEntity } from './organization-resource-access.entity';

@Injectable()
export class ResourceAccessRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private rows() {
    return this.dataSource
      .getRepository(OrganizationResourceAccessEntity)
      .createQueryBuilder('a')
      .leftJoinAndSelect('a.createdBy', 'createdBy');
  }

  async page(organizationId: string, limit: number, offset: number): Promise<{ rows: OrganizationResourceAccessEntity[]; count: number }> {
    const [rows, count] = await this.rows()
      .where('a.organization_id = :organizationId', { organizationId })
      .orderBy('a.id', 'ASC')
      .take(limit)
      .skip(offset)
      .getManyAndCount();
    return { rows, count };
  }

  find(organizationId: string, id: number): Promise<OrganizationResourceAccessEntity | null> {
    return this.rows().where('a.organization_id = :organizationId AND a.id = :id', { organizationId, id }).getOne();
  }

  async levelFor(organizationId: string, resource: AccessResource): Promise<number | null> {
    const rows: Array<{ access_level: number }> = await this.dataSource.query(
      `SELECT access_level FROM organization_resource_access WHERE organization_id = $1 AND resource = $2`,
      [organizationId, resource],
    );
    return rows[0]?.access_level ?? null;
  }

  async insert(organizationId: string, resource: AccessResource, level: number, createdById: number): Promise<number> {
    const [row]: Array<{ id: number }> = await this.dataSource.query(
      `INSERT INTO organization_resource_access (organization_id, resource, access_level, created_by_id)
       VALUES ($1, $2, $3, $4) RETURNING id`,
      [organizationId, resource, level, createdById],
    );
    return row.id;
  }

  async update(organizationId: string, id: number, changes: { resource?: AccessResource; level?: number }): Promise<void> {
    await this.dataSource.query(
      `UPDATE organization_resource_access
          SET resource = coalesce($3, resource), access_level = coalesce($4, access_level), updated_at = now()
        WHERE organization_id = $1 AND id = $2`,
      [organizationId, id, changes.resource ?? null, changes.level ?? null],
    );
  }

  async delete(organizationId: string, id: number): Promise<boolean> {
    const [, affected] = await this.dataSource.query(`DELETE FROM organization_resource_access WHERE organization_id = $1 AND id = $2`, [
      organizationId,
      id,
    ]);
    return affected > 0;
  }
}
