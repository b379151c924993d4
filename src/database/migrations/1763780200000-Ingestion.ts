import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What ingestion writes: persons and their distinct ids, groups, events (partitioned by month of
 * `timestamp`, deduplicated on (project, uuid) through event_uuid) and ingestion warnings.
 */
export class Ingestion1763780200000 implements MigrationInterface {
  name = 'Ingestion1763780200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE person (
        id bigserial PRIMARY KEY,
        project_id integer NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        uuid uuid NOT NULL,
        properties jsonb NOT NULL DEFAULT '{}',
        is_identified boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        version integer NOT NULL DEFAULT 0,
        CONSTRAINT person_project_uuid_key UNIQUE (project_id, uuid)
      )`);
    await q.query(`CREATE INDEX person_project_created_idx ON person (project_id, created_at DESC, id DESC)`);
    await q.query(`
      CREATE TABLE person_distinct_id (
        project_id integer NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        distinct_id text NOT NULL,
        person_id bigint NOT NULL REFERENCES person (id) ON DELETE CASCADE,
        PRIMARY KEY (project_id, distinct_id)
      )`);
    await q.query(`CREATE INDEX person_distinct_id_person_idx ON person_distinct_id (person_id)`);

    await q.query(`
      CREATE TABLE group_type_mapping (
        project_id integer NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        group_type text NOT NULL,
        group_type_index smallint NOT NULL CHECK (group_type_index BETWEEN 0 AND 4),
        PRIMARY KEY (project_id, group_type),
        CONSTRAINT group_type_mapping_index_key UNIQUE (project_id, group_type_index)
      )`);
    await q.query(`
      CREATE TABLE "group" (
        project_id integer NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        group_type_index smallint NOT NULL,
        group_key text NOT NULL,
        properties jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        version integer NOT NULL DEFAULT 0,
        PRIMARY KEY (project_id, group_type_index, group_key)
      )`);

    // Dedup lives outside the partitioned table: a unique key there would have to include the timestamp,
    // and a retried event may be skew-corrected to a slightly different timestamp. It also finds an
    // event by uuid: its timestamp leads to the right partition, so `event` needs no uuid index.
    await q.query(`
      CREATE TABLE event_uuid (
        project_id integer NOT NULL,
        uuid uuid NOT NULL,
        timestamp timestamptz NOT NULL,
        PRIMARY KEY (project_id, uuid)
      )`);
    await q.query(`
      CREATE TABLE event (
        project_id integer NOT NULL,
        uuid uuid NOT NULL,
        event text NOT NULL,
        distinct_id text NOT NULL,
        person_id bigint,
        properties jsonb NOT NULL,
        elements_chain text NOT NULL DEFAULT '',
        timestamp timestamptz NOT NULL,
        inserted_at timestamptz NOT NULL DEFAULT now()
      ) PARTITION BY RANGE (timestamp)`);
    await q.query(`CREATE TABLE event_default PARTITION OF event DEFAULT`);
    await q.query(`CREATE INDEX event_project_timestamp_idx ON event (project_id, timestamp DESC, uuid)`);
    await q.query(`CREATE INDEX event_project_event_timestamp_idx ON event (project_id, event, timestamp DESC)`);
    await q.query(`CREATE INDEX event_project_distinct_timestamp_idx ON event (project_id, distinct_id, timestamp DESC)`);

    await q.query(`
      CREATE TABLE ingestion_warning (
        id bigserial PRIMARY KEY,
        project_id integer NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        type text NOT NULL,
        details jsonb NOT NULL DEFAULT '{}',
        timestamp timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX ingestion_warning_project_time_idx ON ingestion_warning (project_id, timestamp DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ingestion_warning`);
    await q.query(`DROP TABLE event`);
    await q.query(`DROP TABLE event_uuid`);
    await q.query(`DROP TABLE "group"`);
    await q.query(`DROP TABLE group_type_mapping`);
    await q.query(`DROP TABLE person_distinct_id`);
    await q.query(`DROP TABLE person`);
  }
}
