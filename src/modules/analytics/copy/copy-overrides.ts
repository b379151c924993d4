import type { AnalyticsEngine } from '../engine/analytics-engine';
import { ChParams } from '../engine/ch-sql';

/** A distinct id whose owner a refresh saw change: `personId` is the owner now. */
export interface ChangedOwner {
  distinct_id: string;
  person_id: string;
}

const LOOKUP_CHUNK = 10_000;

/** The person each of these distinct ids is overridden to now, for those that have an override. */
async function currentOverrides(engine: AnalyticsEngine, team: number, chunk: ChangedOwner[]): Promise<Map<string, string>> {
  const p = new ChParams();
  const rows = await engine.query<{ distinct_id: string; owner: string }>(p.sql(
    `SELECT distinct_id, toString(argMax(person_id, version)) AS owner FROM person_distinct_id_overrides
      WHERE team_id = ${p.add(team, 'Int64')} AND distinct_id IN ${p.add(chunk.map((c) => c.distinct_id), 'Array(String)')} GROUP BY distinct_id`,
  ));
  return new Map(rows.map((row) => [row.distinct_id, row.owner]));
}

/**
 * Which changed distinct ids need an override: those whose events the copy already holds with another
 * owner. Events carry the owner their distinct id had when they were copied (so insights join no table of
 * every distinct id); when the owner changes afterwards (a merge, a delete and a new person) the override
 * says who owns them now. A distinct id the copy knows with another owner (or deleted) needs one; one it
 * does not know needs one only if some of its events were copied before (without the owner it has now).
 */
export async function overridesNeeded(engine: AnalyticsEngine, team: number, changed: ChangedOwner[], batch: number): Promise<ChangedOwner[]> {
  const needed: ChangedOwner[] = [];
  for (let i = 0; i < changed.length; i += LOOKUP_CHUNK) {
    const chunk = changed.slice(i, i + LOOKUP_CHUNK);
    const p = new ChParams();
    const known = await engine.query<{ distinct_id: string; owner: string; deleted: number }>(p.sql(
      `SELECT distinct_id, toString(argMax(person_id, version)) AS owner, argMax(is_deleted, version) AS deleted FROM person_distinct_id
        WHERE team_id = ${p.add(team, 'Int64')} AND distinct_id IN ${p.add(chunk.map((c) => c.distinct_id), 'Array(String)')} GROUP BY distinct_id`,
    ));
    const owners = new Map(known.map((k) => [k.distinct_id, Number(k.deleted) === 1 ? null : k.owner]));
    const overridden = await currentOverrides(engine, team, chunk);
    // An override the copy holds for another owner (one written when the distinct id was deleted, say) would
    // otherwise outlive the owner the distinct id has now: it is superseded whatever else is known.
    const stale = (c: ChangedOwner) => overridden.has(c.distinct_id) && overridden.get(c.distinct_id) !== c.person_id;
    const unknown = chunk.filter((c) => !owners.has(c.distinct_id) && !stale(c));
    needed.push(...chunk.filter((c) => stale(c) || (owners.has(c.distinct_id) && owners.get(c.distinct_id) !== c.person_id)));
    if (unknown.length === 0) continue;
    const q = new ChParams();
    const copied = await engine.query<{ distinct_id: string; persons: string[] }>(q.sql(
      `SELECT distinct_id, groupUniqArray(toString(person_id)) AS persons FROM events
        WHERE team_id = ${q.add(team, 'Int64')} AND distinct_id IN ${q.add(unknown.map((c) => c.distinct_id), 'Array(String)')} AND _batch < ${q.add(batch, 'UInt64')}
        GROUP BY distinct_id`,
    ));
    const persons = new Map(copied.map((row) => [row.distinct_id, row.persons]));
    needed.push(...unknown.filter((c) => (persons.get(c.distinct_id) ?? []).some((person) => person !== c.person_id)));
  }
  return needed;
}
