import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { NormalizedEvent } from '../events/normalized-event';
import type { IngestionWarning } from '../ingestion-warnings/ingestion-warning';
import { GroupsRepository } from './groups.repository';
import { isJsonObject, scalarText } from '../../common/json/json-object';

/** PostHog's group type column holds 400 characters; a longer type names no group (the event is kept). */
const MAX_GROUP_TYPE_LENGTH = 400;

@Injectable()
export class GroupsService {
  /** Group types this process saw mapped (or refused, all five in use) per project: mappings are never reassigned. */
  private readonly knownTypes = new Map<number, Set<string>>();

  constructor(private readonly groups: GroupsRepository) {}

  /**
   * Every group type an event names in `$groups` gets an index, as PostHog's ingestion assigns one on first sight,
   * so a group counts (`unique_group`, aggregation by group) once an event names it, `$groupidentify` or not.
   * After the events are stored, outside their transaction: a lost assignment is redone by the next such event.
   */
  async recordGroupTypes(projectId: number, events: ReadonlyArray<{ properties: Record<string, unknown> }>): Promise<void> {
    const known = this.knownTypes.get(projectId) ?? new Set<string>();
    const named = new Set<string>();
    for (const { properties } of events) {
      const groups = properties.$groups;
      if (!isJsonObject(groups)) continue;
      for (const [type, key] of Object.entries(groups)) {
        if (type.length <= MAX_GROUP_TYPE_LENGTH && scalarText(key) && !known.has(type)) named.add(type);
      }
    }
    for (const type of named) {
      await this.groups.assignType(projectId, type);
      known.add(type);
    }
    this.knownTypes.set(projectId, known);
  }

  /** The project's group types by index, as flags reference them. */
  typeMapping(projectId: number): Promise<Array<{ index: number; name: string }>> {
    return this.groups.typeMapping(projectId);
  }

  /** `$groupidentify`: upsert the group (`$group_type`, `$group_key`, `$group_set`), assigning its type an index. */
  async applyGroupIdentifies(em: EntityManager, projectId: number, events: NormalizedEvent[]): Promise<IngestionWarning[]> {
    const warnings: IngestionWarning[] = [];
    for (const event of events) {
      if (event.event !== '$groupidentify') continue;
      const { $group_type: type, $group_key: key, $group_set: set } = event.properties;
      // Keys longer than PostHog's 400 characters and a `$group_set` that is not an object never get
      // here: capture drops those events.
      const groupKey = scalarText(key);
      if (typeof type !== 'string' || type.length > MAX_GROUP_TYPE_LENGTH || !groupKey) {
        warnings.push({ type: 'invalid_group_identify', details: { uuid: event.uuid, group_type: type ?? null, group_key: key ?? null } });
        continue;
      }
      const index = await this.groups.typeIndex(em, projectId, type);
      if (index === null) {
        warnings.push({ type: 'invalid_group_identify', details: { uuid: event.uuid, reason: 'all five group types are in use', group_type: type } });
        continue;
      }
      await this.groups.upsert(em, projectId, index, groupKey, isJsonObject(set) ? set : {}, new Date(event.timestamp));
    }
    return warnings;
  }
}
