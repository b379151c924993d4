import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort, ServiceProcess } from '../support/service-process';
import { createEmptyDatabase, runId, TEST_REDIS_URL } from '../support/test-env';

/**
 * The analytics copy's refresher killed with SIGKILL while it streams a batch out of PostgreSQL (seen in
 * pg_stat_activity as its connection's active COPY): the first build, then refreshes of new events and persons,
 * killed before and after the batch's events were written. The next start undoes the batch that never committed and
 * copies again, so every event is counted once: none lost, none twice.
 */
describe('analytics copy killed midway', () => {
  const personalKey = 'phx_CopyKillPersonalKeyForAutomation0123456ab';
  let url: string;
  let db: Client;
  let dataDir: string;
  let port: number;

  beforeAll(async () => {
    url = await createEmptyDatabase('copykill');
    dataDir = mkdtempSync(join(tmpdir(), `hogbase-t${runId()}-copykill-`));
    port = await freePort();
  });

  /** The service started last: killed after the test, whatever happened in it. */
  let latest: ServiceProcess | undefined;

  afterAll(async () => {
    latest?.kill();
    await db?.end();
  });

  const start = () => (latest = new ServiceProcess({
    DATABASE_URL: url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: `hbkill${runId()}`, DATA_DIR: dataDir, ROLE: 'api', PORT: String(port),
    INIT_PROJECT_API_KEY: 'phc_CopyKillProjectKeyForAutomation0123456789a', INIT_PERSONAL_API_KEY: personalKey,
  }));

  /** Events straight into PostgreSQL, as ingestion stores them (a page view each, spread over the last two days). */
  async function insertEvents(projectId: number, count: number): Promise<void> {
    await db.query(`INSERT INTO event (project_id, uuid, event, distinct_id, properties, timestamp)
      SELECT $1, gen_random_uuid(), '$pageview', 'd' || (g % 5000), jsonb_build_object('$current_url', 'https://example.com/p/' || (g % 50)), now() - (g % 172800) * interval '1 second'
      FROM generate_series(1, $2) AS g`, [projectId, count]);
  }

  /** New persons, a distinct id each, with enough properties that copying them takes a moment. */
  async function insertPersons(projectId: number, count: number): Promise<void> {
    await db.query(`WITH made AS (
        INSERT INTO person (project_id, uuid, properties) SELECT $1, gen_random_uuid(), jsonb_build_object('plan', 'pro', 'bio', repeat('x', 300))
        FROM generate_series(1, $2) RETURNING id)
      INSERT INTO person_distinct_id (project_id, distinct_id, person_id) SELECT $1, 'person-' || id, id FROM made`, [projectId, count]);
  }

  /** Kills the service while its copy streams `table` out of PostgreSQL; false when no such COPY was seen. */
  async function killDuringCopy(service: ServiceProcess, projectId: number, table: 'event' | 'person'): Promise<boolean> {
    // An insight asks for a refresh now, rather than at the copy's next tick; it never answers, as the process dies.
    if (service.child.exitCode === null) void fetch(trendUrl(projectId), { headers: { authorization: `Bearer ${personalKey}` } }).catch(() => undefined);
    const deadline = performance.now() + 60_000;
    while (performance.now() < deadline && service.child.exitCode === null) {
      const active = await db.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'hogbase analytics copy'
        AND state = 'active' AND query LIKE $1`, [`COPY%FROM ${table === 'event' ? 'event e' : 'person'} %`]);
      if (active.rowCount) {
        service.kill();
        await service.exit();
        return true;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return false;
  }

  /** Page views over the last week: every event inserted. */
  const trendUrl = (projectId: number) => `http://127.0.0.1:${port}/api/projects/${projectId}/insights/trend/?events=${encodeURIComponent(JSON.stringify([{ id: '$pageview' }]))}&date_from=-7d&refresh=true`;

  /**
   * The count once the restarted copy has caught up: until its first refresh (undoing the killed batch, copying it
   * again) ends, an insight that waited ANALYTICS_COPY_WAIT_MS answers 503 "try again shortly", as it should.
   */
  async function countedEvents(projectId: number): Promise<number> {
    const deadline = performance.now() + 60_000;
    let res = await fetch(trendUrl(projectId), { headers: { authorization: `Bearer ${personalKey}` } });
    while (res.status === 503 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      res = await fetch(trendUrl(projectId), { headers: { authorization: `Bearer ${personalKey}` } });
    }
    expect(res.status).toBe(200);
    return ((await res.json()) as { result: Array<{ count: number }> }).result[0].count;
  }

  it('counts every event once after a kill during the first build and kills during refreshes', async () => {
    // A first start migrates and bootstraps, then stops cleanly before any event exists.
    let service = start();
    await service.waitFor(`http://127.0.0.1:${port}/_readyz`);
    expect((await service.terminate()).code).toBe(0);
    db = new Client({ connectionString: url });
    await db.connect();
    const projectId = (await db.query<{ id: number }>('SELECT id FROM project ORDER BY id LIMIT 1')).rows[0].id;

    // The build a rebuild request asks for, killed: the next start builds again from nothing.
    await insertEvents(projectId, 150_000);
    await db.query(`INSERT INTO analytics_deletion (project_id, kind, key) VALUES (0, 'truncate', 'rebuild requested')`);
    service = start();
    expect(await killDuringCopy(service, projectId, 'event')).toBe(true);
    let expected = 150_000;
    service = start();
    await service.waitFor(`http://127.0.0.1:${port}/_readyz`);
    expect(await countedEvents(projectId)).toBe(expected);
    expect(service.stdout).toContain(`analytics copy rebuilt from PostgreSQL: ${expected} events`);

    // Refreshes of new persons and events, killed after the batch's events were written (while its persons stream)
    // and while its events stream: the next start undoes the batch and copies it again.
    for (const table of ['person', 'event'] as const) {
      // In one transaction, so that one batch copies both.
      await db.query('BEGIN');
      await insertPersons(projectId, 60_000);
      await insertEvents(projectId, 150_000);
      await db.query('COMMIT');
      expected += 150_000;
      expect(await killDuringCopy(service, projectId, table)).toBe(true);
      service = start();
      await service.waitFor(`http://127.0.0.1:${port}/_readyz`);
      expect(await countedEvents(projectId)).toBe(expected);
      expect(service.stdout).toMatch(/analytics copy batch \d+ did not commit: undoing it/);
    }
    await service.terminate();
  }, 240_000);
});
