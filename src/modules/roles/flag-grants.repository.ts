import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { FlagRoleGrantEntity } from './flag-role-grant.entity';

export interface AssociatedFlag {
  id: number;
  key: string;
}

/** Rows of `feature_flag_role_access`: which roles may edit which view-only flags. */
@Injectable()
export class FlagGrantsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private grants() {
    return this.dataSource.getRepository(FlagRoleGrantEntity);
  }

  async grantedFlagIds(roleIds: string[]): Promise<Set<number>> {
    if (roleIds.length === 0) return new Set();
    const rows: Array<{ id: number }> = await this.dataSource.query(
      `SELECT DISTINCT feature_flag_id AS id FROM feature_flag_role_access WHERE role_id = ANY($1)`,
      [roleIds],
    );
    return new Set(rows.map((row) => row.id));
  }

  /** `associated_flags` of roles: the live flags each role was granted. */
  async associatedFlags(roleIds: string[]): Promise<Map<string, AssociatedFlag[]>> {
    const byRole = new Map<string, AssociatedFlag[]>(roleIds.map((id) => [id, []]));
    if (roleIds.length === 0) return byRole;
    const rows: Array<{ role_id: string; id: number; key: string }> = await this.dataSource.query(
      `SELECT g.role_id, f.id, f.key FROM feature_flag_role_access g JOIN feature_flag f ON f.id = g.feature_flag_id
        WHERE g.role_id = ANY($1) AND NOT f.deleted ORDER BY g.added_at, g.id`,
      [roleIds],
    );
    for (const row of rows) byRole.get(row.role_id)?.push({ id: row.id, key: row.key });
    return byRole;
  }

  async pageForFlag(flagId: number, limit: number, offset: number): Promise<{ rows: FlagRoleGrantEntity[]; count: number }> {
    const [rows, count] = await this.grants().findAndCount({
      where: { featureFlagId: flagId },
      order: { addedAt: 'ASC', id: 'ASC' },
      take: limit,
      skip: offset,
    });
    return { rows, count };
  }

  find(flagId: number, id: number): Promise<FlagRoleGrantEntity | null> {
    return this.grants().findOneBy({ featureFlagId: flagId, id });
  }

  /** The new grant, or null when the role is gone (deleted since it was looked up). */
  async insert(flagId: number, roleId: string): Promise<FlagRoleGrantEntity | null> {
    // The role row is locked against deletion, so a concurrent delete means no row, never a foreign key error.
    const [row]: Array<{ id: number } | undefined> = await this.dataSource.query(
      `INSERT INTO feature_flag_role_access (feature_flag_id, role_id) SELECT $1, id FROM role WHERE id = $2 FOR KEY SHARE RETURNING id`,
      [flagId, roleId],
    );
    return row ? ((await this.find(flagId, row.id)) as FlagRoleGrantEntity) : null;
  }

  async delete(flagId: number, id: number): Promise<boolean> {
    const result = await this.grants().delete({ featureFlagId: flagId, id });
    return (result.affected ?? 0) > 0;
  }
}
