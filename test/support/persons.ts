import type { TestApp } from './test-app';

export interface StoredPerson {
  id: number;
  properties: Record<string, unknown>;
  is_identified: boolean;
  distinct_ids: string[];
}

/** Every person of the project with its distinct ids, for whole-state assertions. */
export async function personsOf(t: TestApp): Promise<StoredPerson[]> {
  const rows = await t.sql<{ id: string; properties: Record<string, unknown>; is_identified: boolean; distinct_ids: string[] }>(
    `SELECT p.id, p.properties, p.is_identified, array_agg(d.distinct_id ORDER BY d.distinct_id) AS distinct_ids
       FROM person p LEFT JOIN person_distinct_id d ON d.person_id = p.id
      GROUP BY p.id ORDER BY p.id`,
  );
  return rows.map((row) => ({ ...row, id: Number(row.id) }));
}

export async function personByDistinctId(t: TestApp, distinctId: string): Promise<StoredPerson | undefined> {
  return (await personsOf(t)).find((person) => person.distinct_ids.includes(distinctId));
}
