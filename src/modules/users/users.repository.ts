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
