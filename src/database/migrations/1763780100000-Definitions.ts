import { MigrationInterface, QueryRunner } from 'typeorm';

/** Event and property definitions, filled by ingestion and read by the management API. */
export class Definitions1763780100000 implements MigrationInterface {
  name = 'Definitions1763780100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE event_definition (
        id uuid PRIMARY KEY,
        project_id integer NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz,
        CONSTRAINT event_definition_project_name_key UNIQUE (project_id, name)
      )`);
    await q.query(`
      CREATE TABLE property_definition (
        id uuid PRIMARY KEY,
        project_id integer NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        name text NOT NULL,
        type smallint NOT NULL CHECK (type IN (1, 2, 3)),
        group_type_index smallint,
        property_type text,
        is_numerical boolean NOT NULL DEFAULT false
      )`);
    await q.query(`
      CREATE UNIQUE INDEX property_definition_project_name_type_key
        ON property_definition (project_id, name, type, coalesce(group_type_index, -1))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE property_definition`);
    await q.query(`DROP TABLE event_definition`);
  }
}
