import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { NormalizedEvent } from './normalized-event';
import { EventsRepository, StoredEventRow } from './events.repository';

@Injectable()
export class EventsService {
  constructor(private readonly events: EventsRepository) {}

  /** The events not stored before: claiming their uuids is what makes a retried job write each once. */
  claimNewUuids(em: EntityManager, projectId: number, events: NormalizedEvent[]): Promise<Set<string>> {
    return this.events.claimNewUuids(em, projectId, events);
  }

  store(em: EntityManager, projectId: number, rows: StoredEventRow[]): Promise<void> {
    return this.events.insert(em, projectId, rows);
  }
}
