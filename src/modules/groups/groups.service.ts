import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { IngestionWarning, NormalizedEvent } from '../ingestion/ingestion.types';
import { GroupsRepository } from './groups.repository';

const MAX_GROUP_KEY_LENGTH = 400;
type Bag = Record<string, unknown>;
const isBag = (value: unknown): value is Bag => value !== null && typeof value === 'object' && !Array.isArray(value);

@Injectable()
export class GroupsService {
  constructor(private readonly groups: GroupsRepository) {}

  /** `$groupidentify`: upsert the group (`$group_type`, `$group_key`, `$group_set`), assigning its type an index. */
  async applyGroupIdentifies(em: EntityManager, projectId: number, events: NormalizedEvent[]): Promise<IngestionWarning[]> {
    const warnings: IngestionWarning[] = [];
    for (const event of events) {
      if (event.event !== '$groupidentify') continue;
      const { $group_type: type, $group_key: key, $group_set: set } = event.properties;
      const groupKey = typeof key === 'number' ? String(key) : key;
      if (typeof type !== 'string' || typeof groupKey !== 'string' || groupKey === '' || groupKey.length > MAX_GROUP_KEY_LENGTH || (set !== undefined && !isBag(set))) {
        warnings.push({ type: 'invalid_group_identify', details: { uuid: event.uuid, group_type: type ?? null, group_key: key ?? null } });
        continue;
      }
      const index = await this.groups.typeIndex(em, projectId, type);
      if (index === null) {
        warnings.push({ type: 'invalid_group_identify', details: { uuid: event.uuid, reason: 'all five group types are in use', group_type: type } });
        continue;
      }
      await this.groups.upsert(em, projectId, index, groupKey, isBag(set) ? set : {}, new Date(event.timestamp));
    }
    return warnings;
  }
}
