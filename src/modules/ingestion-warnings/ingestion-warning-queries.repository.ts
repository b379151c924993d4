import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { WarningTypeRow } from './warning-summaries';

/** Examples kept per warning type, as PostHog. */
export const EXAMPLES_PER_TYPE = 50;

/** Reads what the ingestion workers recorded in `ingestion_warning` (they own the writes). */
@Injectable()
export class IngestionWarningQueriesRepository {
  /**
   * One row per warning type since `since`: its count, newest time, daily counts and latest examples. `search` keeps
   * warnings whose type or details contain it (case-sensitive, as PostHog's `q`).
   */
  summaryRows(em: EntityManager, projectId: number, since: Date, search: string | null): Promise<WarningTypeRow[]> {
    return em.query(
      `WITH recent AS (
         SELECT type, details, timestamp FROM ingestion_warning
         WHERE project_id = $1 AND timestamp > $2
           AND ($3::text IS NULL OR strpos(type, $3) > 0 OR strpos(details::text, $3) > 0)
       )
       SELECT t.type, t.count, t.last_seen, examples.list AS examples, daily.list AS daily
       FROM (SELECT type, count(*) AS count, max(timestamp) AS last_seen FROM recent GROUP BY type) t
       CROSS JOIN LATERAL (
         SELECT coalesce(json_agg(json_build_object('details', e.details, 'timestamp', e.timestamp) ORDER BY e.timestamp DESC), '[]') AS list
         FROM (SELECT details, timestamp FROM recent WHERE type = t.type ORDER BY timestamp DESC LIMIT $4) e
       ) examples
       CROSS JOIN LATERAL (
         SELECT json_agg(json_build_object('day', d.day, 'count', d.count) ORDER BY d.day) AS list
         FROM (SELECT to_char(timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*) AS count FROM recent WHERE type = t.type GROUP BY 1) d
       ) daily`,
      [projectId, since, search, EXAMPLES_PER_TYPE],
    );
  }
}
