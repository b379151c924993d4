import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { PersonalApiKeyEntity } from './personal-api-key.entity';

@Injectable()
export class PersonalApiKeysRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  findBySecureValue(secureValue: string): Promise<PersonalApiKeyEntity | null> {
    return this.dataSource.getRepository(PersonalApiKeyEntity).findOneBy({ secureValue });
  }

  listForUser(userId: number): Promise<PersonalApiKeyEntity[]> {
    return this.dataSource.getRepository(PersonalApiKeyEntity).find({ where: { userId }, order: { createdAt: 'DESC' } });
  }

  listAll(): Promise<PersonalApiKeyEntity[]> {
    return this.dataSource.getRepository(PersonalApiKeyEntity).find({ order: { createdAt: 'ASC' } });
  }

  countForUser(userId: number): Promise<number> {
    return this.dataSource.getRepository(PersonalApiKeyEntity).countBy({ userId });
  }

  insert(em: EntityManager, key: PersonalApiKeyEntity): Promise<PersonalApiKeyEntity> {
    return em.save(PersonalApiKeyEntity, key);
  }

  async touchLastUsed(id: string, at: Date): Promise<void> {
    await this.dataSource.getRepository(PersonalApiKeyEntity).update({ id }, { lastUsedAt: at });
  }
}
