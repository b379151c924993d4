import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { MembershipLevel, OrganizationMembershipEntity } from './organization-membership.entity';
import { OrganizationEntity } from './organization.entity';

export interface MembershipWithOrganization {
  organization: OrganizationEntity;
  level: MembershipLevel;
}

@Injectable()
export class OrganizationsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  count(): Promise<number> {
    return this.dataSource.getRepository(OrganizationEntity).count();
  }

  findById(id: string): Promise<OrganizationEntity | null> {
    return this.dataSource.getRepository(OrganizationEntity).findOneBy({ id });
  }

  findBySlug(slug: string): Promise<OrganizationEntity | null> {
    return this.dataSource.getRepository(OrganizationEntity).findOneBy({ slug });
  }

  async membershipLevel(userId: number, organizationId: string): Promise<MembershipLevel | null> {
    const row = await this.dataSource.getRepository(OrganizationMembershipEntity).findOneBy({ userId, organizationId });
    return row?.level ?? null;
  }

  async membershipsOf(userId: number): Promise<MembershipWithOrganization[]> {
    const rows: Array<{ level: number } & Record<string, unknown>> = await this.dataSource.query(
      `SELECT o.id, o.name, o.slug, o.created_at, o.updated_at, m.level
         FROM organization_membership m JOIN organization o ON o.id = m.organization_id
        WHERE m.user_id = $1 ORDER BY o.created_at, o.id`,
      [userId],
    );
    return rows.map((row) => ({
      level: row.level,
      organization: Object.assign(new OrganizationEntity(), {
        id: row.id,
        name: row.name,
        slug: row.slug,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      }),
    }));
  }

  async memberCount(organizationId: string): Promise<number> {
    return this.dataSource.getRepository(OrganizationMembershipEntity).countBy({ organizationId });
  }

  async create(em: EntityManager, name: string, slug: string): Promise<OrganizationEntity> {
    const organization = em.create(OrganizationEntity, { id: randomUUID(), name, slug });
    return em.save(organization);
  }

  async addMember(em: EntityManager, organizationId: string, userId: number, level: MembershipLevel): Promise<void> {
    await em.query(
      `INSERT INTO organization_membership (id, organization_id, user_id, level) VALUES ($1, $2, $3, $4)
       ON CONFLICT (organization_id, user_id) DO UPDATE SET level = EXCLUDED.level`,
      [randomUUID(), organizationId, userId, level],
    );
  }
}
