import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { RoleMembershipEntity } from './role-membership.entity';
import { RoleEntity } from './role.entity';

export interface RoleLevel {
  id: string;
  level: number;
}

@Injectable()
export class RolesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private roles() {
    return this.dataSource.getRepository(RoleEntity).createQueryBuilder('r').leftJoinAndSelect('r.createdBy', 'createdBy');
  }

  async page(organizationId: string, limit: number, offset: number): Promise<{ rows: RoleEntity[]; count: number }> {
    const [rows, count] = await this.roles()
      .where('r.organization_id = :organizationId', { organizationId })
      .orderBy('r.createdAt', 'ASC')
      .addOrderBy('r.id', 'ASC')
      .take(limit)
      .skip(offset)
      .getManyAndCount();
    return { rows, count };
  }

  find(organizationId: string, id: string): Promise<RoleEntity | null> {
    return this.roles().where('r.organization_id = :organizationId AND r.id = :id', { organizationId, id }).getOne();
  }

  findMany(organizationId: string, ids: string[]): Promise<RoleEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.roles().where('r.organization_id = :organizationId AND r.id = ANY(:ids)', { organizationId, ids }).getMany();
  }

  async nameTaken(organizationId: string, name: string, exceptId: string | null): Promise<boolean> {
    const rows = await this.dataSource.query(
      `SELECT 1 FROM role WHERE organization_id = $1 AND lower(name) = lower($2) AND id IS DISTINCT FROM $3 LIMIT 1`,
      [organizationId, name, exceptId],
    );
    return rows.length > 0;
  }

  async insert(organizationId: string, name: string, level: number, createdById: number): Promise<string> {
    const id = randomUUID();
    await this.dataSource.query(
      `INSERT INTO role (id, organization_id, name, feature_flags_access_level, created_by_id) VALUES ($1, $2, $3, $4, $5)`,
      [id, organizationId, name, level, createdById],
    );
    return id;
  }

  async update(organizationId: string, id: string, changes: { name?: string; level?: number }): Promise<void> {
    await this.dataSource.query(
      `UPDATE role SET name = coalesce($3, name), feature_flags_access_level = coalesce($4, feature_flags_access_level)
        WHERE organization_id = $1 AND id = $2`,
      [organizationId, id, changes.name ?? null, changes.level ?? null],
    );
  }

  async delete(organizationId: string, id: string): Promise<boolean> {
    const [, affected] = await this.dataSource.query(`DELETE FROM role WHERE organization_id = $1 AND id = $2`, [organizationId, id]);
    return affected > 0;
  }

  /** Members of several roles at once, for a page of roles. */
  membersOf(roleIds: string[]): Promise<RoleMembershipEntity[]> {
    if (roleIds.length === 0) return Promise.resolve([]);
    return this.memberships().where('m.role_id = ANY(:roleIds)', { roleIds }).getMany();
  }

  async membershipPage(roleId: string, limit: number, offset: number): Promise<{ rows: RoleMembershipEntity[]; count: number }> {
    const [rows, count] = await this.memberships().where('m.role_id = :roleId', { roleId }).take(limit).skip(offset).getManyAndCount();
    return { rows, count };
  }

  findMembership(roleId: string, id: string): Promise<RoleMembershipEntity | null> {
    return this.memberships().where('m.role_id = :roleId AND m.id = :id', { roleId, id }).getOne();
  }

  async isMember(roleId: string, userId: number): Promise<boolean> {
    const rows = await this.dataSource.query(`SELECT 1 FROM role_membership WHERE role_id = $1 AND user_id = $2`, [roleId, userId]);
    return rows.length > 0;
  }

  /** The new membership's id, or null when the role is gone (deleted since it was looked up). */
  async addMember(roleId: string, userId: number): Promise<string | null> {
    const id = randomUUID();
    // The role row is locked against deletion, so a concurrent delete means no row, never a foreign key error.
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO role_membership (id, role_id, user_id) SELECT $1, id, $3 FROM role WHERE id = $2 FOR KEY SHARE RETURNING id`,
      [id, roleId, userId],
    );
    return rows.length > 0 ? id : null;
  }

  async removeMember(roleId: string, id: string): Promise<boolean> {
    const [, affected] = await this.dataSource.query(`DELETE FROM role_membership WHERE role_id = $1 AND id = $2`, [roleId, id]);
    return affected > 0;
  }

  /** The user's roles in one organization with their flag access levels. */
  async rolesOfUser(organizationId: string, userId: number): Promise<RoleLevel[]> {
    const rows: Array<{ id: string; level: number }> = await this.dataSource.query(
      `SELECT r.id, r.feature_flags_access_level AS level
         FROM role r JOIN role_membership m ON m.role_id = r.id
        WHERE r.organization_id = $1 AND m.user_id = $2`,
      [organizationId, userId],
    );
    return rows;
  }

  private memberships() {
    return this.dataSource
      .getRepository(RoleMembershipEntity)
      .createQueryBuilder('m')
      .innerJoinAndSelect('m.user', 'user')
      .orderBy('m.joinedAt', 'ASC')
      .addOrderBy('m.id', 'ASC');
  }
}
