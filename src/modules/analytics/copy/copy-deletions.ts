import type { AnalyticsEngine } from '../engine/analytics-engine';
import { ChParams } from '../engine/ch-sql';

/** A row of PostgreSQL's deletion log (see the AnalyticsDeletionLog migration). */
export interface Deletion {
  project_id: number;
  kind: 'event' | 'distinct_id' | 'person' | 'group' | 'cohort_person' | 'truncate';
  key: string;
}

/** UUIDs per lightweight DELETE: each is one mutation, so they are few and large. */
const DELETE_CHUNK = 50_000;

function byProject(deletions: Deletion[], kind: Deletion['kind']): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const d of deletions) if (d.kind === kind) out.set(d.project_id, [...(out.get(d.project_id) ?? []), d.key]);
  return out;
}

/** `a:b` keys of the log, split at the first colon (a group key may hold colons). */
function pair(key: string): [string, string] {
  const at = key.indexOf(':');
  return [key.slice(0, at), key.slice(at + 1)];
}

/**
 * Applies a batch's deletions, before its upserts: events leave the events table (a lightweight DELETE,
 * batched), and deleted persons, distinct ids, groups and static cohort members get a row with
 * `is_deleted = 1` at the batch's deletion version, which readers' `argMax(…, version)` honour. A row
 * deleted and written again in the same batch is upserted afterwards at a higher version, so it stays.
 * A deleted distinct id also gets an override to "no person", since its events were copied with an owner.
 */
export async function applyDeletions(engine: AnalyticsEngine, deletions: Deletion[], version: number, eventsTable: string): Promise<void> {
  for (const [team, uuids] of byProject(deletions, 'event')) {
    for (let i = 0; i < uuids.length; i += DELETE_CHUNK) {
      const p = new ChParams();
      await engine.command(p.sql(`DELETE FROM ${eventsTable} WHERE team_id = ${p.add(team, 'Int64')} AND uuid IN ${p.add(uuids.slice(i, i + DELETE_CHUNK), 'Array(UUID)')}`));
    }
  }
  const rows = (kind: Deletion['kind'], row: (team: number, key: string) => Record<string, unknown>) =>
    deletions.filter((d) => d.kind === kind).map((d) => ({ ...row(d.project_id, d.key), is_deleted: 1, version }));
  const distinctIds = rows('distinct_id', (team, key) => ({ team_id: team, distinct_id: key, person_id: 0 }));
  const writes: Array<[string, Array<Record<string, unknown>>]> = [
    ['person_distinct_id', distinctIds],
    ['person_distinct_id_overrides', distinctIds.map((row) => ({ ...row, is_deleted: 0 }))],
    ['person', rows('person', (team, key) => ({ team_id: team, id: key, created_at: '1970-01-01 00:00:00', properties: '{}' }))],
    ['groups', rows('group', (team, key) => {
      const [index, groupKey] = pair(key);
      return { team_id: team, group_type_index: Number(index), group_key: groupKey, created_at: '1970-01-01 00:00:00', properties: '{}' };
    })],
    ['cohort_person', rows('cohort_person', (team, key) => {
      const [cohort, person] = pair(key);
      return { team_id: team, cohort_id: cohort, person_id: person };
    })],
  ];
  for (const [table, values] of writes) if (values.length > 0) await engine.insert(table, values);
}
