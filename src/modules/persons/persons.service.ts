import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { NormalizedEvent } from '../events/normalized-event';
import type { IngestionWarning } from '../ingestion-warnings/ingestion-warning';
import { hasUpdates, identityOperationOf, isPersonless, personUpdatesOf, updatesPersonProperties } from './person-rules';
import { PersonSession } from './person-session';
import { PersonsRepository } from './persons.repository';

export interface PersonOutcome {
  /** Person id of each event, in order; null for personless events of unknown ids. */
  personIds: Array<number | null>;
  warnings: IngestionWarning[];
}

@Injectable()
export class PersonsService {
  constructor(private readonly repository: PersonsRepository) {}

  /**
   * Applies one project's events to persons, in order, inside the caller's transaction: identify,
   * alias and merges first, then `$set_once`, `$set`, `$unset`.
   */
  async applyEvents(em: EntityManager, projectId: number, events: NormalizedEvent[]): Promise<PersonOutcome> {
    const session = new PersonSession(em, projectId, this.repository);
    const ids = new Set<string>();
    for (const event of events) {
      ids.add(event.distinct_id);
      const operation = identityOperationOf(event.event, event.properties);
      if (operation.kind === 'merge') ids.add(operation.otherId);
    }
    await session.load(ids);
    const personIds: Array<number | null> = [];
    for (const event of events) personIds.push(await this.applyOne(session, event));
    await session.flush();
    return { personIds, warnings: session.warnings };
  }

  private async applyOne(session: PersonSession, event: NormalizedEvent): Promise<number | null> {
    if (isPersonless(event.event, event.properties)) return session.personOf(event.distinct_id)?.id ?? null;
    const createdAt = new Date(event.timestamp);
    const operation = identityOperationOf(event.event, event.properties);
    const person =
      operation.kind === 'merge'
        ? await session.merge(event.distinct_id, operation.otherId, operation.dangerous, createdAt)
        : await session.ensurePerson(event.distinct_id, createdAt);
    const updates = personUpdatesOf(event.properties);
    if (hasUpdates(updates) && updatesPersonProperties(event.event)) session.applyUpdates(person, updates);
    return person.id;
  }
}
