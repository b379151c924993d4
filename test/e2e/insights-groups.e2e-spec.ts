import { ingestBatch } from '../support/ingestion';
import { filterQuery as q } from '../support/insights';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Groups named only in events' `$groups`, never by `$groupidentify`, as PostHog counts them: the type gets an index
 * on first sight, so `unique_group` counts its keys.
 *
 *   Jan 1  alice joined (team t1), bob joined (team t2)
 *   Jan 2  carol joined (team t1, and an empty `project` key, which names no group), dave joined (no groups)
 */
describe('Insights: groups named by events', () => {
  let t: TestApp;
  let base: string;
  const joined = (distinct_id: string, timestamp: string, $groups?: Record<string, string>) => ({ event: 'joined', distinct_id, timestamp, properties: $groups ? { $groups } : {} });

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    base = `/api/projects/${t.keys.projectId}`;
    await ingestBatch(t, t.keys.projectApiKey, [
      joined('alice', '2026-01-01T10:00:00Z', { team: 't1' }),
      joined('bob', '2026-01-01T11:00:00Z', { team: 't2' }),
      joined('carol', '2026-01-02T10:00:00Z', { team: 't1', project: '' }),
      joined('dave', '2026-01-02T11:00:00Z'),
    ]);
  });
  afterAll(() => t.close());

  it('gives a group type seen in $groups an index, and none to a type named with an empty key', async () => {
    const mapping = await t.sql('SELECT group_type, group_type_index FROM group_type_mapping WHERE project_id = $1 ORDER BY group_type_index', [t.keys.projectId]);
    expect(mapping).toEqual([{ group_type: 'team', group_type_index: 0 }]);
  });

  it('counts the distinct keys of that type per day with unique_group', async () => {
    const res = await t.http.get(`${base}/insights/trend/?${q({ events: [{ id: 'joined', math: 'unique_group', math_group_type_index: 0 }], date_from: '2026-01-01', date_to: '2026-01-02' })}`);
    expect(res.status).toBe(200);
    expect(res.body.result[0].data).toEqual([2, 1]);
  });
});
