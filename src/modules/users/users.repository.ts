import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { UserEntity } from './user.entity';

export interface NewUser {
  email: string;
  firstName: string;
  currentOrganizationId: string;
  currentProjectId: number | null;
}

@Injectable()
export class UsersRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  findById(id: number): Promise<UserEntity | null> {
    return this.dataSource.getRepository(UserEntity).findOneBy({ id });
  }

  findByUuid(uuid: string): Promise<UserEntity | null> {
    return this.dataSource.getRepository(UserEntity).findOneBy({ uuid });
  }

  /** What signing in reads of a user: whether they are active, and their password's hash. */
  async signInRecord(email: string): Promise<{ userId: number; isActive: boolean; passwordHash: string | null } | null> {
    const rows: Array<{ id: number; is_active: boolean; password_hash: string | null }> = await this.dataSource.query(
      'SELECT id, is_active, password_hash FROM app_user WHERE lower(email) = lower($1)',
      [email],
    );
    return rows.length ? { userId: rows[0].id, isActive: rows[0].is_active, passwordHash: rows[0].password_hash } : null;
  }

  async setPasswordHash(em: EntityManager, userId: number, passwordHash: string): Promise<void> {
    await em.query('UPDATE app_user SET password_hash = $2, password_changed_at = now() WHERE id = $1', [userId, passwordHash]);
  }

  async hasPassword(userId: number): Promise<boolean> {
    const rows: Array<{ set: boolean }> = await this.dataSource.query('SELECT password_hash IS NOT NULL AS set FROM app_user WHERE id = $1', [userId]);
    return rows[0]?.set ?? false;
  }

  findByEmail(email: string): Promise<UserEntity | null> {
    return this.dataSource
      .getRepository(UserEntity)
      .createQueryBuilder('u')
      .where('lower(u.email) = lower(:email)', { email })
      .getOne();
  }

  listAll(): Promise<UserEntity[]> {
    return this.dataSource.getRepository(UserEntity).find({ order: { id: 'ASC' } });
  }

  create(em: EntityManager, input: NewUser): Promise<UserEntity> {
    const uuid = randomUUID();
    const user = em.create(UserEntity, {
      uuid,
      distinctId: uuid,
      email: input.email,
      firstName: input.firstName,
      lastName: '',
      isActive: true,
      isStaff: false,
      currentOrganizationId: input.currentOrganizationId,
      currentProjectId: input.currentProjectId,
      dateJoined: new Date(),
    });
    return em.save(user);
  }
}
