import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the persons, events and event-definitions API reads: person search indexes, the order of a
 * person's distinct ids, the editable event-definition fields, daily per-event counters behind
 * `volume_30_day` / `query_usage_30_day`, and two helpers that read dates and versions out of jsonb
 * without ever raising on odd values (a property filter must not turn a stored value into a 500).
 */
export class ManagementReads1763780500000 implements MigrationInterface {
  name = 'ManagementReads1763780500000';

  async up(q: QueryRunner): Promise<void> {
    // Trusted since PostgreSQL 13: a database owner may create it.
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    // PostHog lists a person's distinct ids in the order they were added; the first one names the person.
    await q.query(`ALTER TABLE person_distinct_id ADD COLUMN seq bigserial`);
    await q.query(`CREATE INDEX person_email_idx ON person (project_id, (properties ->> 'email'))`);
    // Substring search (`?search=`) on email, name and distinct ids: trigram indexes answer ILIKE '%x%'.
    await q.query(`CREATE INDEX person_email_trgm_idx ON person USING gin ((properties ->> 'email') gin_trgm_ops)`);
    await q.query(`CREATE INDEX person_name_trgm_idx ON person USING gin ((properties ->> 'name') gin_trgm_ops)`);
    await q.query(`CREATE INDEX person_distinct_id_trgm_idx ON person_distinct_id USING gin (distinct_id gin_trgm_ops)`);

    await q.query(`
      ALTER TABLE event_definition
        ADD COLUMN owner_id integer REFERENCES app_user (id) ON DELETE SET NULL,
        ADD COLUMN description text NOT NULL DEFAULT '',
        ADD COLUMN tags text[] NOT NULL DEFAULT '{}',
        ADD COLUMN verified boolean NOT NULL DEFAULT false,
        ADD COLUMN verified_at timestamptz,
        ADD COLUMN verified_by_id integer REFERENCES app_user (id) ON DELETE SET NULL,
        ADD COLUMN updated_at timestamptz,
        ADD COLUMN updated_by_id integer REFERENCES app_user (id) ON DELETE SET NULL,
        ADD COLUMN post_to_chat boolean NOT NULL DEFAULT false`);
    // One row per project, event name and UTC day: 30-day figures are a sum of at most 31 rows.
    await q.query(`
      CREATE TABLE event_definition_daily (
        project_id integer NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        name text NOT NULL,
        day date NOT NULL,
        volume bigint NOT NULL DEFAULT 0,
        query_usage integer NOT NULL DEFAULT 0,
        PRIMARY KEY (project_id, name, day)
      )`);
    await q.query(`
      INSERT INTO event_definition_daily (project_id, name, day, volume)
      SELECT project_id, event, (timestamp AT TIME ZONE 'UTC')::date, count(*)
        FROM event WHERE timestamp > now() - interval '31 days'
       GROUP BY 1, 2, 3`);

    // Unix seconds (number or numeric string) or an ISO-like date string → epoch milliseconds, else NULL.
    await q.query(`
      CREATE FUNCTION property_epoch_ms(value jsonb) RETURNS double precision
      LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
      DECLARE t text;
      BEGIN
        IF jsonb_typeof(value) = 'number' THEN RETURN (value #>> '{}')::double precision * 1000; END IF;
        IF jsonb_typeof(value) IS DISTINCT FROM 'string' THEN RETURN NULL; END IF;
        t := value #>> '{}';
        IF t ~ '^\\s*-?\\d{1,15}(\\.\\d{1,20})?\\s*$' THEN RETURN t::double precision * 1000; END IF;
        IF t !~ '^\\s*\\d{4}-\\d{1,2}-\\d{1,2}' OR length(t) > 64 THEN RETURN NULL; END IF;
        RETURN extract(epoch FROM t::timestamptz) * 1000;
      EXCEPTION WHEN others THEN
        RETURN NULL;
      END $$`);
    // A semantic version → [major, minor, patch, 1 for a release / 0 for a pre-release], else NULL.
    await q.query(`
      CREATE FUNCTION property_semver(value jsonb) RETURNS numeric[]
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT CASE WHEN m IS NULL THEN NULL
               ELSE ARRAY[m[1]::numeric, coalesce(m[2], '0')::numeric, coalesce(m[3], '0')::numeric,
                          CASE WHEN m[4] IS NULL THEN 1 ELSE 0 END] END
          FROM regexp_match(CASE WHEN jsonb_typeof(value) IN ('string', 'number') THEN value #>> '{}' END,
                            '^\\s*v?(\\d{1,18})(?:\\.(\\d{1,18}))?(?:\\.(\\d{1,18}))?(-[0-9A-Za-z.-]+)?(?:\\+[0-9A-Za-z.-]*)?\\s*$', 'i') AS m
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION property_semver(jsonb)`);
    await q.query(`DROP FUNCTION property_epoch_ms(jsonb)`);
    await q.query(`DROP TABLE event_definition_daily`);
    await q.query(`
      ALTER TABLE event_definition
        DROP COLUMN owner_id, DROP COLUMN description, DROP COLUMN tags, DROP COLUMN verified, DROP COLUMN verified_at,
        DROP COLUMN verified_by_id, DROP COLUMN updated_at, DROP COLUMN updated_by_id, DROP COLUMN post_to_chat`);
    await q.query(`DROP INDEX person_distinct_id_trgm_idx`);
    await q.query(`DROP INDEX person_name_trgm_idx`);
    await q.query(`DROP INDEX person_email_trgm_idx`);
    await q.query(`DROP INDEX person_email_idx`);
    await q.query(`ALTER TABLE person_distinct_id DROP COLUMN seq`);
  }
}
