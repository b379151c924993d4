import fc from 'fast-check';
import { AnalyticsCopy } from '../../src/modules/analytics/copy/analytics-copy.service';
import { ANALYTICS_ENGINE, AnalyticsEngine } from '../../src/modules/analytics/engine/analytics-engine';
import { startExtraApi, startTestApp, TestApp } from '../support/test-app';

/**
 * The ClickHouse copy equals what PostgreSQL holds after any sequence of writes: events, new persons,
 * merges, person property changes, deleted persons and events, groups and static cohort members, with
 * refreshes at random points, some of them failing midway (a crash between two writes of a batch). The
 * comparison reads each side as insights see it: every event once, with the person owning its distinct id now.
 */
const IDS = 6;
const WRITES = ['insert', 'insertTsv', 'command'] as const;

type Operation =
  | { op: 'event'; id: number; name: string }
  | { op: 'person'; id: number; plan: string }
  | { op: 'merge'; from: number; into: number }
  | { op: 'props'; id: number; plan: string }
  | { op: 'deletePerson'; id: number; withEvents: boolean }
  | { op: 'deleteEvents'; id: number }
  | { op: 'group'; key: number; name: string }
  | { op: 'deleteGroup'; key: number }
  | { op: 'member'; id: number; add: boolean }
  | { op: 'refresh'; failAt: number | null };

const id = fc.nat(IDS - 1);
const operation: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('event' as const), id, name: fc.constantFrom('$pageview', 'signup') }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('person' as const), id, plan: fc.constantFrom('free', 'pro') }) },
  fc.record({ op: fc.constant('merge' as const), from: id, into: id }),
  fc.record({ op: fc.constant('props' as const), id, plan: fc.constantFrom('free', 'pro', 'team') }),
  fc.record({ op: fc.constant('deletePerson' as const), id, withEvents: fc.boolean() }),
  fc.record({ op: fc.constant('deleteEvents' as const), id }),
  fc.record({ op: fc.constant('group' as const), key: fc.nat(2), name: fc.constantFrom('a', 'b') }),
  fc.record({ op: fc.constant('deleteGroup' as const), key: fc.nat(2) }),
  fc.record({ op: fc.constant('member' as const), id, add: fc.boolean() }),
  { weight: 3, arbitrary: fc.record({ op: fc.constant('refresh' as const), failAt: fc.option(fc.integer({ min: 1, max: 12 }), { freq: 2 }) }) },
);

describe('AnalyticsCopy', () => {
  let t: TestApp;
  let copy: AnalyticsCopy;
  let engine: AnalyticsEngine;
  let team: number;
  let cohort: number;

  beforeAll(async () => {
    t = await startTestApp({ env: { ANALYTICS_COPY_INTERVAL_MS: '0' } });
    copy = t.app.get(AnalyticsCopy);
    engine = t.app.get(ANALYTICS_ENGINE);
    team = t.keys.projectId;
    [{ id: cohort }] = await t.sql<{ id: number }>(`INSERT INTO cohort (project_id, name, is_static) VALUES ($1, 'vips', true) RETURNING id`, [team]);
  });
  afterAll(() => t.close());

  async function ownerOf(distinctId: string): Promise<string | null> {
    const [row] = await t.sql<{ person_id: string }>('SELECT person_id::text FROM person_distinct_id WHERE project_id = $1 AND distinct_id = $2', [team, distinctId]);
    return row?.person_id ?? null;
  }

  /** Makes the `nth` write to ClickHouse from now fail once, as a process killed at that point would stop there. */
  function failOnce(nth: number): () => void {
    const target = engine as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const originals = WRITES.map((name) => [name, target[name]] as const);
    let calls = 0;
    for (const [name, original] of originals) {
      target[name] = (...args: unknown[]) => (++calls === nth ? Promise.reject(new Error('planted crash')) : original.apply(engine, args));
    }
    return () => originals.forEach(([name, original]) => (target[name] = original));
  }

  async function apply(o: Operation): Promise<void> {
    const d = `d${'id' in o ? o.id : 0}`;
    switch (o.op) {
      case 'event':
        await t.sql(`INSERT INTO event (project_id, uuid, event, distinct_id, properties, timestamp) VALUES ($1, gen_random_uuid(), $2, $3, '{"$browser": "Chrome"}', now())`, [team, o.name, d]);
        return;
      case 'person':
        if (await ownerOf(d)) return;
        await t.sql(`WITH p AS (INSERT INTO person (project_id, uuid, properties) VALUES ($1, gen_random_uuid(), jsonb_build_object('plan', $3::text)) RETURNING id)
          INSERT INTO person_distinct_id (project_id, distinct_id, person_id) SELECT $1, $2, id FROM p`, [team, d, o.plan]);
        return;
      case 'merge': {
        const [from, into] = [await ownerOf(`d${o.from}`), await ownerOf(`d${o.into}`)];
        if (!from || !into || from === into) return;
        await t.sql('UPDATE person_distinct_id SET person_id = $2 WHERE person_id = $1', [from, into]);
        await t.sql('INSERT INTO cohort_person (cohort_id, person_id) SELECT cohort_id, $2 FROM cohort_person WHERE person_id = $1 ON CONFLICT DO NOTHING', [from, into]);
        await t.sql('DELETE FROM person WHERE id = $1', [from]);
        return;
      }
      case 'props':
        await t.sql(`UPDATE person SET properties = jsonb_build_object('plan', $2::text) WHERE id = (SELECT person_id FROM person_distinct_id WHERE project_id = $1 AND distinct_id = $3)`, [team, o.plan, d]);
        return;
      case 'deletePerson': {
        const owner = await ownerOf(d);
        if (!owner) return;
        if (o.withEvents) await t.sql('DELETE FROM event WHERE project_id = $1 AND distinct_id IN (SELECT distinct_id FROM person_distinct_id WHERE person_id = $2)', [team, owner]);
        await t.sql('DELETE FROM person WHERE id = $1', [owner]);
        return;
      }
      case 'deleteEvents':
        await t.sql('DELETE FROM event WHERE project_id = $1 AND distinct_id = $2', [team, d]);
        return;
      case 'group':
        await t.sql(`INSERT INTO "group" (project_id, group_type_index, group_key, properties) VALUES ($1, 0, $2, jsonb_build_object('name', $3::text))
          ON CONFLICT (project_id, group_type_index, group_key) DO UPDATE SET properties = excluded.properties`, [team, `g:${o.key}`, o.name]);
        return;
      case 'deleteGroup':
        await t.sql(`DELETE FROM "group" WHERE project_id = $1 AND group_key = $2`, [team, `g:${o.key}`]);
        return;
      case 'member': {
        const owner = await ownerOf(d);
        if (!owner) return;
        if (o.add) await t.sql('INSERT INTO cohort_person (cohort_id, person_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [cohort, owner]);
        else await t.sql('DELETE FROM cohort_person WHERE cohort_id = $1 AND person_id = $2', [cohort, owner]);
        return;
      }
      case 'refresh': {
        if (o.failAt === null) return copy.current();
        const restore = failOnce(o.failAt);
        // A refresh with fewer writes than failAt succeeds; one that reaches it fails midway (and when no refresh has
        // succeeded in this process yet, the insight's 503 names the failure).
        await copy.current().catch((error: Error) => expect(error.message).toContain('planted crash')).finally(restore);
      }
    }
  }

  const sorted = <T>(rows: T[]) => rows.map((row) => JSON.stringify(row)).sort();

  async function postgres() {
    return {
      events: sorted(await t.sql(`SELECT e.uuid::text AS uuid, e.event, e.distinct_id, coalesce(pd.person_id::text, '0') AS person FROM event e
        LEFT JOIN person_distinct_id pd ON pd.project_id = e.project_id AND pd.distinct_id = e.distinct_id WHERE e.project_id = $1`, [team])),
      persons: sorted(await t.sql(`SELECT id::text AS id, properties ->> 'plan' AS plan FROM person WHERE project_id = $1`, [team])),
      groups: sorted(await t.sql(`SELECT group_key AS key, properties ->> 'name' AS name FROM "group" WHERE project_id = $1`, [team])),
      members: sorted(await t.sql(`SELECT person_id::text AS person FROM cohort_person WHERE cohort_id = $1`, [cohort])),
    };
  }

  async function clickhouse() {
    const q = <R>(text: string) => engine.query<R>({ text, params: { team, cohort } });
    return {
      events: sorted(await q(`SELECT toString(e.uuid) AS uuid, e.event AS event, e.distinct_id AS distinct_id, toString(if(o.distinct_id = '', e.person_id, o.person_id)) AS person
        FROM events AS e LEFT JOIN (SELECT distinct_id, argMax(person_id, version) AS person_id FROM person_distinct_id_overrides WHERE team_id = {team:Int64} GROUP BY distinct_id) AS o
        ON o.distinct_id = e.distinct_id WHERE e.team_id = {team:Int64}`)),
      persons: sorted(await q(`SELECT toString(id) AS id, JSONExtract(argMax(properties, version), 'plan', 'Nullable(String)') AS plan FROM person
        WHERE team_id = {team:Int64} GROUP BY id HAVING argMax(is_deleted, version) = 0`)),
      groups: sorted(await q(`SELECT group_key AS key, JSONExtract(argMax(properties, version), 'name', 'Nullable(String)') AS name FROM groups
        WHERE team_id = {team:Int64} GROUP BY group_type_index, group_key HAVING argMax(is_deleted, version) = 0`)),
      members: sorted(await q(`SELECT toString(person_id) AS person FROM cohort_person WHERE team_id = {team:Int64} AND cohort_id = {cohort:Int64}
        GROUP BY person_id HAVING argMax(is_deleted, version) = 0`)),
    };
  }

  it('holds what PostgreSQL holds after any writes, refreshes and failed refreshes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 40 }), async (operations) => {
        await t.sql('DELETE FROM event WHERE project_id = $1', [team]);
        await t.sql('DELETE FROM person WHERE project_id = $1', [team]);
        await t.sql('DELETE FROM "group" WHERE project_id = $1', [team]);
        for (const o of operations) await apply(o);
        await copy.current();
        expect(await clickhouse()).toEqual(await postgres());
      }),
      { numRuns: 25 },
    );
  }, 300_000);

  /** Rebuilds the copy went through: each starts with a `started` row whose horizon is 0. */
  async function rebuilds(): Promise<number> {
    const [row] = await engine.query<{ n: string }>({ text: `SELECT toString(count()) AS n FROM copy_state WHERE status = 'started' AND horizon = '0'`, params: {} });
    return Number(row.n);
  }

  it('is rebuilt by the service that holds the engine when a process without it asks', async () => {
    const without = await startExtraApi(t, { CLICKHOUSE_EMBEDDED: 'off' });
    try {
      const before = await rebuilds();
      expect(await without.app.get(AnalyticsCopy).rebuildOrRequest(() => undefined)).toBe('requested');
      await copy.current();
      expect(await rebuilds()).toBe(before + 1);
      expect(await clickhouse()).toEqual(await postgres());
    } finally {
      await without.close();
    }
  });

  it('leaves capture, flags and the management API working without an engine, and answers insights 503 naming CLICKHOUSE_URL', async () => {
    const without = await startExtraApi(t, { CLICKHOUSE_EMBEDDED: 'off' });
    try {
      const insight = await without.http.get(`/api/projects/${team}/insights/trend/?events=${encodeURIComponent('[{"id":"$pageview"}]')}`);
      expect([insight.status, insight.body]).toEqual([503, {
        type: 'server_error',
        code: 'service_unavailable',
        detail: 'Insights need ClickHouse: set CLICKHOUSE_URL to a ClickHouse server (the embedded engine is not available here: it is turned off (CLICKHOUSE_EMBEDDED=off)).',
        attr: null,
      }]);
      const persons = await without.http.get(`/api/projects/${team}/persons/trends/?events=${encodeURIComponent('[{"id":"$pageview"}]')}&entity_id=%24pageview`);
      expect(persons.status).toBe(503);
      const capture = await fetch(`${without.baseUrl}/capture/`, { method: 'POST', body: JSON.stringify({ api_key: t.keys.projectApiKey, event: 'e', distinct_id: 'x' }) });
      expect(capture.status).toBe(200);
      const flags = await fetch(`${without.baseUrl}/flags/?v=2`, { method: 'POST', body: JSON.stringify({ api_key: t.keys.projectApiKey, distinct_id: 'x' }) });
      expect(flags.status).toBe(200);
      expect((await without.http.get(`/api/projects/${team}/events/`)).status).toBe(200);
    } finally {
      await without.close();
    }
  });

  it('rebuilds from PostgreSQL what it holds', async () => {
    await apply({ op: 'person', id: 1, plan: 'pro' });
    await apply({ op: 'event', id: 1, name: 'signup' });
    await copy.current();
    await copy.rebuild();
    expect(await clickhouse()).toEqual(await postgres());
  });
});
