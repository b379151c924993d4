import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { generatePersonalApiKey, hashPersonalApiKey, maskKey, randomBase62 } from '../../common/crypto/tokens';
import { ApiError } from '../../common/errors/api-error';
import { isValidScope } from '../../common/auth/scopes';
import { buildPage, Page, PageRequest } from '../../common/http/pagination';
import type { PersonalApiKeyDto } from './dto/personal-api-key.dto';
import { personalApiKeyJson } from './personal-api-key.presenter';
import { PersonalApiKeyEntity } from './personal-api-key.entity';
import { PersonalApiKeysRepository } from './personal-api-keys.repository';

export const MAX_KEYS_PER_USER = 10;
/** PostHog writes last_used_at at most once an hour, so that reads stay reads. */
const LAST_USED_RESOLUTION_MS = 60 * 60 * 1000;

export interface NewPersonalKey {
  userId: number;
  label: string;
  scopes: string[];
  scopedProjects: number[] | null;
  /** A fixed secret (INIT_PERSONAL_API_KEY); otherwise one is generated. */
  value?: string;
}

@Injectable()
export class PersonalApiKeysService {
  private readonly logger = new Logger(PersonalApiKeysService.name);

  constructor(private readonly keys: PersonalApiKeysRepository) {}

  /** Looks the key up by its hash: the secret is never compared as a string. */
  async findByValue(value: string): Promise<PersonalApiKeyEntity | null> {
    const key = await this.keys.findBySecureValue(hashPersonalApiKey(value));
    if (key) this.recordUse(key);
    return key;
  }

  listForUser(userId: number): Promise<PersonalApiKeyEntity[]> {
    return this.keys.listForUser(userId);
  }

  async pageForUser(userId: number, page: PageRequest, url: URL): Promise<Page<PersonalApiKeyDto>> {
    const keys = await this.keys.listForUser(userId);
    const results = keys.slice(page.offset, page.offset + page.limit).map((key) => personalApiKeyJson(key));
    return buildPage(url, page, results, keys.length);
  }

  listAll(): Promise<PersonalApiKeyEntity[]> {
    return this.keys.listAll();
  }

  /** Creates a key and returns it with its secret, which is never readable again. */
  async create(em: EntityManager, input: NewPersonalKey): Promise<{ key: PersonalApiKeyEntity; value: string }> {
    const invalid = input.scopes.find((scope) => !isValidScope(scope));
    if (invalid !== undefined) throw ApiError.validation(`Invalid scope: ${invalid}`, 'scopes');
    if ((await this.keys.countForUser(input.userId)) >= MAX_KEYS_PER_USER) {
      throw ApiError.validation(
        `You can only have ${MAX_KEYS_PER_USER} personal API keys. Remove an existing key before creating a new one.`,
      );
    }
    const value = input.value ?? generatePersonalApiKey();
    const key = Object.assign(new PersonalApiKeyEntity(), {
      id: randomBase62(22),
      userId: input.userId,
      label: input.label,
      secureValue: hashPersonalApiKey(value),
      maskValue: maskKey(value),
      scopes: input.scopes,
      scopedProjects: input.scopedProjects,
      createdAt: new Date(),
      lastUsedAt: null,
      lastRolledAt: null,
    });
    return { key: await this.keys.insert(em, key), value };
  }

  private recordUse(key: PersonalApiKeyEntity): void {
    const now = new Date();
    if (key.lastUsedAt && now.getTime() - key.lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS) return;
    this.keys.touchLastUsed(key.id, now).catch((error) => this.logger.warn({ err: error }, 'could not record key use'));
  }
}
