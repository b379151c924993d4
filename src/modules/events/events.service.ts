import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { EventsRepository, StoredEventRow } from './events.repository';

@Injectable()
export class EventsService {
  constructor(private readonly events: EventsRepository) {}

  claimNewUuids(em: EntityManager, projectId: number, uuids: string[]): Promise<Set<string>> {
    return this.events.claimNewUuids(em, projectId, uuids);
  }

  store(em: EntityManager, projectId: number, rows: StoredEventRow[]): Promise<void> {
    return this.events.insert(em, projectId, rows);
  }
}
