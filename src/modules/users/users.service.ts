import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { UserEntity } from './user.entity';
import { NewUser, UsersRepository } from './users.repository';

@Injectable()
export class UsersService {
  constructor(private readonly users: UsersRepository) {}

  findById(id: number): Promise<UserEntity | null> {
    return this.users.findById(id);
  }

  /** What signing in reads of a user by e-mail (the password's hash is read nowhere else). */
  signInRecord(email: string): Promise<{ userId: number; isActive: boolean; passwordHash: string | null } | null> {
    return this.users.signInRecord(email);
  }

  setPasswordHash(em: EntityManager, userId: number, passwordHash: string): Promise<void> {
    return this.users.setPasswordHash(em, userId, passwordHash);
  }

  hasPassword(userId: number): Promise<boolean> {
    return this.users.hasPassword(userId);
  }

  findByUuid(uuid: string): Promise<UserEntity | null> {
    return this.users.findByUuid(uuid);
  }

  findByEmail(email: string): Promise<UserEntity | null> {
    return this.users.findByEmail(email);
  }

  listAll(): Promise<UserEntity[]> {
    return this.users.listAll();
  }

  async create(em: EntityManager, input: NewUser): Promise<UserEntity> {
    if (await this.users.findByEmail(input.email)) {
      throw ApiError.validation('There is already an account with this email address.', 'email', 'unique');
    }
    return this.users.create(em, input);
  }
}
