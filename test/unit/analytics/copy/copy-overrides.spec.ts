import type { AnalyticsEngine } from '../../../../src/modules/analytics/engine/analytics-engine';
import type { ChSql } from '../../../../src/modules/analytics/engine/ch-sql';
import { overridesNeeded } from '../../../../src/modules/analytics/copy/copy-overrides';

/** An engine whose reads answer by table: the copy's distinct ids, its overrides and its events. */
function engineHolding(tables: { person_distinct_id?: unknown[]; person_distinct_id_overrides?: unknown[]; events?: unknown[] }): AnalyticsEngine {
  const query = async (sql: ChSql) => {
    const table = /FROM (person_distinct_id_overrides|person_distinct_id|events)\b/.exec(sql.text)?.[1] as keyof typeof tables;
    return tables[table] ?? [];
  };
  return { query } as unknown as AnalyticsEngine;
}

describe(overridesNeeded.name, () => {
  const changed = [{ distinct_id: 'd0', person_id: '11' }];

  it('supersedes an override the copy holds for another person, even for a distinct id it does not know', async () => {
    // The override pointed d0 at nobody when its person was deleted; d0 now has a new person and no copied events.
    const sut = engineHolding({ person_distinct_id_overrides: [{ distinct_id: 'd0', owner: '0' }] });
    expect(await overridesNeeded(sut, 1, changed, 5)).toEqual(changed);
  });

  it('writes none where the copy knows the owner already and holds no other override', async () => {
    expect(await overridesNeeded(engineHolding({ person_distinct_id: [{ distinct_id: 'd0', owner: '11', deleted: 0 }] }), 1, changed, 5)).toEqual([]);
    expect(await overridesNeeded(engineHolding({ person_distinct_id_overrides: [{ distinct_id: 'd0', owner: '11' }] }), 1, changed, 5)).toEqual([]);
  });

  it('writes one where the copy knows another owner, or events copied with another owner', async () => {
    expect(await overridesNeeded(engineHolding({ person_distinct_id: [{ distinct_id: 'd0', owner: '7', deleted: 0 }] }), 1, changed, 5)).toEqual(changed);
    expect(await overridesNeeded(engineHolding({ events: [{ distinct_id: 'd0', persons: ['7'] }] }), 1, changed, 5)).toEqual(changed);
  });
});
