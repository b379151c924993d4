import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { NormalizedEvent } from './normalized-event';

export interface StoredEventRow {
  event: NormalizedEvent;
  personId: number | null;
}

@Injectable()
export class EventsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The uuids not stored before: claiming them is what makes a retried job write each event once. */
  async claimNewUuids(em: EntityManager, projectId: number, events: NormalizedEvent[]): Promise<Set<string>> {
    if (events.length === 0) return new Set();
    const rows: Array<{ uuid: string }> = await em.query(
      `INSERT INTO event_uuid (project_id, uuid, timestamp)
       SELECT $1, u, t FROM unnest($2::uuid[], $3::timestamptz[]) AS x(u, t)
       ON CONFLICT DO NOTHING RETURNING uuid`,
      [projectId, events.map((e) => e.uuid), events.map((e) => e.timestamp)],
    );
    return new Set(rows.map((row) => row.uuid));
  }

  async insert(em: EntityManager, projectId: number, rows: StoredEventRow[]): Promise<void> {
    if (rows.length === 0) return;
    const payload = rows.map(({ event, personId }) => ({
      uuid: event.uuid,
      event: event.event,
      distinct_id: event.distinct_id,
      person_id: personId,
      properties: event.properties,
      elements_chain: event.elements_chain,
      timestamp: event.timestamp,
    }));
    await em.query(
      `INSERT INTO event (project_id, uuid, event, distinct_id, person_id, properties, elements_chain, timestamp)
       SELECT $1, r.uuid, r.event, r.distinct_id, r.person_id, r.properties, r.elements_chain, r.timestamp
         FROM jsonb_to_recordset($2::jsonb)
           AS r(uuid uuid, event text, distinct_id text, person_id bigint, properties jsonb, elements_chain text, timestamp timestamptz)`,
      [projectId, JSON.stringify(payload)],
    );
  }

  /** Creates the monthly partition starting at `monthStart` unless it exists. */
  async ensureMonthlyPartition(monthStart: Date): Promise<void> {
    const next = new Date(Date.UTC(monthStart.getUTCFullYear(), monthStart.getUTCMonth() + 1, 1));
    const name = `event_y${monthStart.getUTCFullYear()}m${String(monthStart.getUTCMonth() + 1).padStart(2, '0')}`;
    await this.dataSource.query(
      `CREATE TABLE IF NOT EXISTS ${name} PARTITION OF event FOR VALUES FROM ('${monthStart.toISOString()}') TO ('${next.toISOString()}')`,
    );
  }
}
