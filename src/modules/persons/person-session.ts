import type { EntityManager } from 'typeorm';
import type { IngestionWarning } from '../ingestion-warnings/ingestion-warning';
import { applyPersonUpdates, isIllegalDistinctId, mergeProperties, PersonUpdates } from './person-rules';
import { PersonRecord, PersonsRepository } from './persons.repository';

/**
 * The persons one ingestion job touches, held for the length of its transaction: loaded and locked
 * once, changed in memory event by event (so capture order is the order of application), written
 * back once. Merges move distinct ids in the database at once, since they may reach ids not loaded.
 */
export class PersonSession {
  private readonly byDistinctId = new Map<string, PersonRecord>();
  private readonly dirty = new Set<PersonRecord>();
  private readonly deleted = new Set<number>();
  readonly warnings: IngestionWarning[] = [];

  constructor(
    private readonly em: EntityManager,
    private readonly projectId: number,
    private readonly repository: PersonsRepository,
  ) {}

  async load(distinctIds: Iterable<string>): Promise<void> {
    const wanted = [...new Set(distinctIds)].filter((id) => !this.byDistinctId.has(id));
    const found = await this.repository.lockByDistinctIds(this.em, this.projectId, wanted);
    for (const [distinctId, person] of found) this.byDistinctId.set(distinctId, person);
  }

  personOf(distinctId: string): PersonRecord | null {
    return this.byDistinctId.get(distinctId) ?? null;
  }

  async ensurePerson(distinctId: string, createdAt: Date): Promise<PersonRecord> {
    const existing = this.personOf(distinctId);
    if (existing) return existing;
    const person = await this.repository.create(this.em, this.projectId, createdAt);
    await this.repository.addDistinctId(this.em, this.projectId, distinctId, person.id);
    this.byDistinctId.set(distinctId, person);
    return person;
  }

  applyUpdates(person: PersonRecord, updates: PersonUpdates): void {
    const { properties, changed } = applyPersonUpdates(person.properties, updates);
    if (!changed) return;
    person.properties = properties;
    this.dirty.add(person);
  }

  markIdentified(person: PersonRecord): void {
    if (person.isIdentified) return;
    person.isIdentified = true;
    this.dirty.add(person);
  }

  /**
   * `otherId` joins the person of `distinctId`: create one person
   * for both, attach the id that has none, or merge two persons — unless the other one is already
   * identified (only `$merge_dangerously` may). Returns the person of `distinctId`.
   */
  async merge(distinctId: string, otherId: string, dangerous: boolean, createdAt: Date): Promise<PersonRecord> {
    if (otherId === distinctId) return this.ensurePerson(distinctId, createdAt);
    if (isIllegalDistinctId(otherId) || isIllegalDistinctId(distinctId)) {
      this.warnings.push({ type: 'cannot_merge_with_illegal_distinct_id', details: { distinct_id: distinctId, other_id: otherId } });
      return this.ensurePerson(distinctId, createdAt);
    }
    const target = this.personOf(distinctId);
    const source = this.personOf(otherId);
    if (source && target && source !== target && source.isIdentified && !dangerous) {
      this.warnings.push({ type: 'cannot_merge_already_identified', details: { distinct_id: distinctId, other_id: otherId } });
      return target;
    }
    // Only a merge that happens identifies the person (PostHog's mergeDistinctIds): not one refused
    // above, nor one of the same or an illegal id.
    const person = await this.join(distinctId, otherId, target, source, createdAt);
    this.markIdentified(person);
    return person;
  }

  private async join(distinctId: string, otherId: string, target: PersonRecord | null, source: PersonRecord | null, createdAt: Date): Promise<PersonRecord> {
    if (!target && !source) {
      const person = await this.ensurePerson(distinctId, createdAt);
      await this.attach(otherId, person);
      return person;
    }
    if (target && !source) {
      await this.attach(otherId, target);
      return target;
    }
    if (!target && source) {
      await this.attach(distinctId, source);
      return source;
    }
    if (target !== source) await this.absorb(target!, source!);
    return target!;
  }

  /** Writes every changed person in one statement. */
  async flush(): Promise<void> {
    const changed = [...this.dirty].filter((person) => !this.deleted.has(person.id));
    await this.repository.saveAll(this.em, this.projectId, changed);
  }

  private async attach(distinctId: string, person: PersonRecord): Promise<void> {
    await this.repository.addDistinctId(this.em, this.projectId, distinctId, person.id);
    this.byDistinctId.set(distinctId, person);
  }

  /** The target keeps its id and wins shared keys; it takes the source's ids and the older creation date. */
  private async absorb(target: PersonRecord, source: PersonRecord): Promise<void> {
    target.properties = mergeProperties(source.properties, target.properties);
    if (source.createdAt < target.createdAt) target.createdAt = source.createdAt;
    target.isIdentified = true;
    this.dirty.add(target);
    await this.repository.moveDistinctIds(this.em, this.projectId, source.id, target.id);
    await this.repository.moveHashKeyOverrides(this.em, this.projectId, source.id, target.id);
    await this.repository.moveStaticCohortMemberships(this.em, source.id, target.id);
    await this.repository.delete(this.em, this.projectId, source.id);
    this.deleted.add(source.id);
    for (const [id, person] of this.byDistinctId) if (person === source) this.byDistinctId.set(id, target);
  }
}
