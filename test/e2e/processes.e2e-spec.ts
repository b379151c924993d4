import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import IORedis from 'ioredis';
import { Client } from 'pg';
import { startEmbeddedCluster } from '../support/embedded-cluster';
import { openApiLintProblems } from '../support/openapi-lint';
import { freePort, freePorts, ServiceProcess } from '../support/service-process';
import { mainThreadNice, threadNiceValues } from '../support/thread-nice';
import { createEmptyDatabase, runId, TEST_REDIS_URL } from '../support/test-env';

const KEY_LINE = /Personal API key \(phx_, for \/api\/\):\s+(phx_[A-Za-z0-9]{16,64})/;
const PROJECT_KEY_LINE = /Project API key \(phc_, for SDKs\):\s+(phc_[A-Za-z0-9]{16,64})/;

/** From now, how far a process's resident memory rose at its peak (the kernel's high-water mark, reset here), in bytes. */
function peakRssOf(pid: number): () => number {
  const status = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const before = status('VmRSS');
  return () => status('VmHWM') - before;
}

async function getJson(url: string, key: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: await res.json() };
}

async function flagValueOn(base: string, token: string): Promise<boolean | undefined> {
  const res = await fetch(`${base}/flags/?v=2`, { method: 'POST', body: JSON.stringify({ token, distinct_id: 'someone' }) });
  return ((await res.json()) as { flags: Record<string, { enabled: boolean }> }).flags['propagated']?.enabled;
}

/** A flag written through one API process is evaluated by every other within 1 s. */
async function expectFlagChangesToReachOtherProcess(a: string, b: string, keys: { INIT_PROJECT_API_KEY: string; INIT_PERSONAL_API_KEY: string }) {
  const headers = { authorization: `Bearer ${keys.INIT_PERSONAL_API_KEY}`, 'content-type': 'application/json' };
  const token = keys.INIT_PROJECT_API_KEY;
  expect(await flagValueOn(b, token)).toBeUndefined(); // B now holds a snapshot without the flag
  const waitOnB = async (expected: boolean | undefined) => {
    const started = performance.now();
    while ((await flagValueOn(b, token)) !== expected) {
      expect(performance.now() - started).toBeLessThan(1_000);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return performance.now() - started;
  };
  const flags = `${a}/api/projects/@current/feature_flags/`;
  const created = await fetch(flags, { method: 'POST', headers, body: JSON.stringify({ key: 'propagated', filters: { groups: [{ rollout_percentage: 100 }] } }) });
  expect(created.status).toBe(201);
  expect(await waitOnB(true)).toBeLessThan(1_000);
  const { id } = (await created.json()) as { id: number };
  const patched = await fetch(`${flags}${id}/`, { method: 'PATCH', headers, body: JSON.stringify({ active: false }) });
  expect(patched.status).toBe(200);
  expect(await waitOnB(undefined)).toBeLessThan(1_000);
}

/** A saved insight's result computed by A is what B serves from the cache alone: results are kept in PostgreSQL. */
async function expectInsightResultsSharedWithOtherProcess(a: string, b: string, keys: { INIT_PERSONAL_API_KEY: string }) {
  const headers = { authorization: `Bearer ${keys.INIT_PERSONAL_API_KEY}`, 'content-type': 'application/json' };
  const query = { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] } };
  const created = await fetch(`${a}/api/projects/@current/insights/`, { method: 'POST', headers, body: JSON.stringify({ name: 'Shared', query }) });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: number };
  const computed = (await (await fetch(`${a}/api/projects/@current/insights/${id}/?refresh=force_blocking`, { headers })).json()) as Record<string, unknown>;
  const served = (await (await fetch(`${b}/api/projects/@current/insights/${id}/`, { headers })).json()) as Record<string, unknown>;
  expect(computed.result).toEqual([expect.objectContaining({ label: '$pageview' })]);
  expect([served.result, served.last_refresh, served.is_cached]).toEqual([computed.result, computed.last_refresh, true]);
}

/**
 * A batch of three 0.9 MB events and a small one, sent to A and read back through B: a payload over 1 MB is decoded,
 * prepared and serialised into jobs on the API's payload worker and written to Redis as bytes, and the worker must
 * store every event exactly as sent.
 */
async function expectLargeBatchStored(a: string, b: string, keys: { INIT_PROJECT_API_KEY: string; INIT_PERSONAL_API_KEY: string }) {
  // About 0.9 MB of JSON each, with two- and four-byte characters, quotes, backslashes and a NUL (stored as U+FFFD):
  // the jobs' JSON, written on the payload worker and framed on the event loop, must give them back exactly.
  const blob = (i: number, nul = '\u0000') => `${i}é"\\😀${nul}`.repeat(45_000);
  const utm = 'u"'.repeat(40_000); // lifted into $set_once as $initial_utm_source: the same long string twice in a job
  const batch: Array<{ event: string; distinct_id: string; properties: Record<string, unknown> }> = [0, 1, 2].map((i) => ({ event: 'large_job', distinct_id: `large-${i}`, properties: { blob: blob(i), i } }));
  Object.assign(batch[0].properties, { utm_source: utm, $long: 'l'.repeat(70_000) });
  batch.push({ event: 'large_job', distinct_id: 'small', properties: { blob: 'small', i: 3 } });
  const sent = await fetch(`${a}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: keys.INIT_PROJECT_API_KEY, batch }) });
  expect(sent.status).toBe(200);
  const url = `${b}/api/projects/@current/events/?event=large_job&limit=10`;
  const deadline = performance.now() + 30_000;
  let stored: Array<{ distinct_id: string; properties: { blob: string; i: number; utm_source?: string; $long?: string; $set_once?: Record<string, unknown> } }> = [];
  while (stored.length < 4 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    stored = (await getJson(url, keys.INIT_PERSONAL_API_KEY)).body.results;
  }
  const byId = new Map(stored.map((event) => [event.distinct_id, event.properties]));
  expect([...byId.keys()].sort()).toEqual(['large-0', 'large-1', 'large-2', 'small']);
  for (const [i, distinctId] of ['large-0', 'large-1', 'large-2'].entries()) {
    expect(byId.get(distinctId)!.i).toBe(i);
    expect(byId.get(distinctId)!.blob === blob(i, '\ufffd')).toBe(true); // compared whole, not printed whole
  }
  const first = byId.get('large-0')!;
  expect([first.utm_source === utm, first.$set_once?.$initial_utm_source === utm, first.$long === 'l'.repeat(70_000)]).toEqual([true, true, true]);
  expect(byId.get('small')).toMatchObject({ blob: 'small', i: 3 });
}

/** Keys of large jobs' payloads under `prefix` once the worker has had a few seconds to remove them: none, normally. */
async function payloadKeysLeft(prefix: string): Promise<string[]> {
  const redis = new IORedis(TEST_REDIS_URL);
  try {
    let keys = await redis.keys(`${prefix}:*:payload:*`);
    for (let tries = 0; tries < 50 && keys.length > 0; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      keys = await redis.keys(`${prefix}:*:payload:*`);
    }
    return keys;
  } finally {
    redis.disconnect();
  }
}

/** Everything in the service's database that its role does not own, as `kind name`; extensions' own objects aside. */
const NOT_OWNED_BY_SERVICE_ROLE = `
  WITH own AS (SELECT oid FROM pg_namespace WHERE nspname <> 'information_schema' AND nspname NOT LIKE 'pg\\_%'),
    extension_member AS (SELECT objid FROM pg_depend WHERE deptype = 'e')
  SELECT kind || ' ' || name AS object FROM (
    SELECT 'schema' AS kind, nspname::text AS name, nspowner AS owner FROM pg_namespace
      WHERE oid IN (SELECT oid FROM own) AND nspowner <> 'pg_database_owner'::regrole
    UNION ALL SELECT 'relation', oid::regclass::text, relowner FROM pg_class
      WHERE relnamespace IN (SELECT oid FROM own) AND oid NOT IN (SELECT objid FROM extension_member)
    UNION ALL SELECT 'routine', oid::regprocedure::text, proowner FROM pg_proc
      WHERE pronamespace IN (SELECT oid FROM own) AND oid NOT IN (SELECT objid FROM extension_member)
    UNION ALL SELECT 'type', oid::regtype::text, typowner FROM pg_type
      WHERE typnamespace IN (SELECT oid FROM own) AND oid NOT IN (SELECT objid FROM extension_member)
  ) AS object WHERE pg_get_userbyid(owner) <> 'hogbase' ORDER BY 1`;

/** `work` on the embedded cluster's `hogbase` database as its superuser, with the password the launcher keeps. */
async function asSuperuser<T>(dataDir: string, pgPort: number, work: (sql: Client) => Promise<T>): Promise<T> {
  const password = readFileSync(join(dataDir, '.pg-password'), 'utf8').trim();
  const sql = new Client({ connectionString: `postgres://postgres:${password}@127.0.0.1:${pgPort}/hogbase` });
  await sql.connect();
  try {
    return await work(sql);
  } finally {
    await sql.end();
  }
}

/** The running service's sessions are the `hogbase` role's, an ordinary role that owns the database and all in it. */
async function expectServiceRoleOwnsEverything(dataDir: string, pgPort: number): Promise<void> {
  await asSuperuser(dataDir, pgPort, async (sql) => {
    const sessions = await sql.query(`SELECT DISTINCT usename FROM pg_stat_activity WHERE datname = 'hogbase' AND pid <> pg_backend_pid()`);
    expect(sessions.rows).toEqual([{ usename: 'hogbase' }]);
    const role = await sql.query(`SELECT rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls, rolcanlogin FROM pg_roles WHERE rolname = 'hogbase'`);
    expect(role.rows).toEqual([{ rolsuper: false, rolcreatedb: false, rolcreaterole: false, rolreplication: false, rolbypassrls: false, rolcanlogin: true }]);
    const owners = await sql.query(`
      SELECT name, pg_get_userbyid(owner) AS owner FROM (
        SELECT datname::text AS name, datdba AS owner FROM pg_database WHERE datname = 'hogbase'
        UNION ALL SELECT oid::regclass::text, relowner FROM pg_class WHERE oid IN ('event'::regclass, 'event_default'::regclass, 'hogbase_queue.job'::regclass)
      ) AS object ORDER BY name`);
    expect(owners.rows).toEqual([
      { name: 'event', owner: 'hogbase' },
      { name: 'event_default', owner: 'hogbase' },
      { name: 'hogbase', owner: 'hogbase' },
      { name: 'hogbase_queue.job', owner: 'hogbase' },
    ]);
    expect((await sql.query(NOT_OWNED_BY_SERVICE_ROLE)).rows).toEqual([]);
  });
}

/** Captures one event with the project key and waits until the personal key reads it back from the events API. */
async function captureAndReadBack(base: string, keys: { project: string; personal: string }, event: string): Promise<void> {
  const body = JSON.stringify({ api_key: keys.project, batch: [{ event, distinct_id: 'upgraded', properties: { step: event } }] });
  expect((await fetch(`${base}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status).toBe(200);
  const deadline = performance.now() + 20_000;
  let found: Array<{ event: string; properties: { step: string } }> = [];
  while (found.length === 0 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    found = (await getJson(`${base}/api/projects/@current/events/?event=${event}`, keys.personal)).body.results;
  }
  expect(found.map((stored) => [stored.event, stored.properties.step])).toEqual([[event, event]]);
}

/**
 * What a data directory made before the service role looked like: every object of the database, the database and
 * the extension owned by the superuser (public too, as PostgreSQL before 15 made it), no service role, no password
 * of its own.
 */
async function ownEverythingAsSuperuser(dataDir: string, env: Record<string, string>): Promise<void> {
  const cluster = await startEmbeddedCluster(env);
  try {
    await asSuperuser(dataDir, Number(env.EMBEDDED_PG_PORT), async (sql) => {
      await sql.query('REASSIGN OWNED BY hogbase TO postgres');
      await sql.query('ALTER SCHEMA public OWNER TO postgres');
      await sql.query('DROP ROLE hogbase');
      const partitions = await sql.query(`SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = 'event'::regclass`);
      const notOwned = (await sql.query(NOT_OWNED_BY_SERVICE_ROLE)).rows.map((row: { object: string }) => row.object);
      expect(partitions.rows.length).toBeGreaterThanOrEqual(2); // event_default and the month of the captured event
      expect(notOwned).toEqual(expect.arrayContaining([
        'schema public', 'schema hogbase_queue', 'relation event', 'relation hogbase_queue.job', 'relation hogbase_queue.job_seq',
        'type hogbase_queue.job_state', 'routine stamp_tx()', ...partitions.rows.map((row: { name: string }) => `relation ${row.name}`),
      ]));
    });
  } finally {
    await cluster.stop();
    rmSync(join(dataDir, '.pg-service-password'));
  }
}

/** The built service as real processes: what `npm run up` and a scaled-out deployment run. */
describe('Service processes', () => {
  const started: ServiceProcess[] = [];
  const start = (env: Record<string, string>) => {
    const service = new ServiceProcess(env);
    started.push(service);
    return service;
  };
  afterAll(() => started.forEach((service) => service.kill()));

  describe('embedded default (no DATABASE_URL, no REDIS_URL)', () => {
    // Made when the tests run, not when the file is read: a run that filters them out leaves nothing behind.
    let dataDir: string;
    let upgradedDir: string;
    beforeAll(() => {
      dataDir = mkdtempSync(join(tmpdir(), 'hogbase-embedded-'));
      upgradedDir = mkdtempSync(join(tmpdir(), 'hogbase-upgraded-'));
    });
    afterAll(() => [dataDir, upgradedDir].forEach((dir) => dir && rmSync(dir, { recursive: true, force: true })));

    it('boots an embedded PostgreSQL, prints keys once, keeps data and keys across restarts', async () => {
      const [port, pgPort] = await freePorts(2);
      const env = { DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(pgPort) };
      const base = `http://127.0.0.1:${port}`;

      const first = start(env);
      await first.waitFor(`${base}/_readyz`);
      const personalKey = KEY_LINE.exec(first.stdout)?.[1];
      const projectKey = PROJECT_KEY_LINE.exec(first.stdout)?.[1];
      expect(personalKey).toBeDefined();
      expect(projectKey).toBeDefined();
      const ready: unknown = await (await fetch(`${base}/_readyz`)).json();
      expect(ready).toEqual({ status: 'ok', checks: { database: 'ok', queue: 'ok' }, queue_backend: 'postgres' });
      const me = await getJson(`${base}/api/users/@me/`, personalKey!);
      expect(me.status).toBe(200);
      expect(me.body.team.api_token).toBe(projectKey);
      const created = await fetch(`${base}/api/projects/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${personalKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Survives restarts' }),
      });
      expect(created.status).toBe(201);
      const stopped = await first.terminate();
      expect(stopped.code).toBe(0);
      expect(stopped.ms).toBeLessThan(25_000);
      // The keys appear once, in the printed banner, and in no log line (pino's JSON lines).
      const logLines = (first.stdout + first.stderr).split('\n').filter((line) => line.startsWith('{'));
      expect(logLines.length).toBeGreaterThan(3);
      for (const secret of [personalKey!, projectKey!]) {
        expect(logLines.filter((line) => line.includes(secret.slice(4)))).toEqual([]);
        expect((first.stdout.match(new RegExp(secret, 'g')) ?? []).length).toBe(secret === personalKey ? 2 : 1); // banner (+ its curl line)
      }
      // The database passwords are kept beside the cluster for its owner alone, and never printed.
      for (const file of ['.pg-password', '.pg-service-password']) {
        expect(statSync(join(dataDir, file)).mode & 0o777).toBe(0o600);
        expect(first.stdout + first.stderr).not.toContain(readFileSync(join(dataDir, file), 'utf8').trim());
      }

      const second = start(env);
      await second.waitFor(`${base}/_readyz`);
      await second.waitForOutput(/"msg":"started"/);
      expect(second.stdout).not.toMatch(KEY_LINE);
      const projects = await getJson(`${base}/api/projects/`, personalKey!);
      expect(projects.status).toBe(200);
      expect(projects.body.results.map((p: { name: string }) => p.name)).toEqual(['Default Project', 'Survives restarts']);
      await expectServiceRoleOwnsEverything(dataDir, pgPort);
      expect((await second.terminate()).code).toBe(0);
    });

    it('hands a data directory whose objects the superuser owns (made before the service role) to the role, and serves it', async () => {
      const [port, pgPort] = await freePorts(2);
      const env = { DATA_DIR: upgradedDir, PORT: String(port), EMBEDDED_PG_PORT: String(pgPort) };
      const base = `http://127.0.0.1:${port}`;
      const first = start(env);
      await first.waitFor(`${base}/_readyz`);
      const keys = { personal: KEY_LINE.exec(first.stdout)![1], project: PROJECT_KEY_LINE.exec(first.stdout)![1] };
      await captureAndReadBack(base, keys, 'before_upgrade');
      expect((await first.terminate()).code).toBe(0);
      await ownEverythingAsSuperuser(upgradedDir, env);

      const upgraded = start(env);
      await upgraded.waitFor(`${base}/_readyz`);
      expect(upgraded.stdout).toMatch(/"role":"hogbase","objects":\d+,"msg":"handed database objects to the service role"/);
      await expectServiceRoleOwnsEverything(upgradedDir, pgPort);
      await captureAndReadBack(base, keys, 'after_upgrade');
      const before = await getJson(`${base}/api/projects/@current/events/?event=before_upgrade`, keys.personal);
      expect(before.body.results.map((event: { properties: { step: string } }) => event.properties.step)).toEqual(['before_upgrade']);
      expect((await upgraded.terminate()).code).toBe(0);
    }, 120_000);
  });

  describe('scaled out on one PostgreSQL and one Redis', () => {
    let url: string;
    beforeAll(async () => {
      url = await createEmptyDatabase('procs');
    });

    it('runs two API processes and a worker that migrate once, bootstrap once and serve the same data', async () => {
      const [portA, portB] = await freePorts(2);
      const shared = {
        DATABASE_URL: url,
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_PREFIX: `hbproc${runId()}`,
        INIT_PROJECT_API_KEY: 'phc_FixedProjectKeyForAutomation0123456789abc',
        INIT_PERSONAL_API_KEY: 'phx_FixedPersonalKeyForAutomation012345678ab',
      };
      const apiA = start({ ...shared, ROLE: 'api', PORT: String(portA) });
      const apiB = start({ ...shared, ROLE: 'api', PORT: String(portB) });
      const workerPort = await freePort();
      const worker = start({ ...shared, ROLE: 'worker', PORT: String(workerPort) });
      await Promise.all([apiA.waitFor(`http://127.0.0.1:${portA}/_readyz`), apiB.waitFor(`http://127.0.0.1:${portB}/_readyz`)]);
      await worker.waitForOutput(/"role":"worker"/);

      // Bootstrapped once, and the keys the operator gave are never printed.
      const announced = [apiA, apiB, worker].filter((p) => p.stdout.includes('hogbase is set up with the keys given in INIT_*.'));
      expect(announced).toHaveLength(1);
      expect(announced[0].stdout).toContain('Personal API key (phx_, for /api/):   (the one in INIT_PERSONAL_API_KEY)');
      for (const process of [apiA, apiB, worker]) {
        expect(process.stdout + process.stderr).not.toContain(shared.INIT_PERSONAL_API_KEY);
        expect(process.stdout + process.stderr).not.toContain(shared.INIT_PROJECT_API_KEY);
      }

      const created = await fetch(`http://127.0.0.1:${portA}/api/projects/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${shared.INIT_PERSONAL_API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Made on A' }),
      });
      const { id } = (await created.json()) as { id: number };
      const readOnB = await getJson(`http://127.0.0.1:${portB}/api/projects/${id}/`, shared.INIT_PERSONAL_API_KEY);
      expect(readOnB.status).toBe(200);
      expect(readOnB.body.name).toBe('Made on A');
      const me = await getJson(`http://127.0.0.1:${portB}/api/users/@me/`, shared.INIT_PERSONAL_API_KEY);
      expect(me.body.team.api_token).toBe(shared.INIT_PROJECT_API_KEY);

      // The built service documents request and response fields (the Swagger compiler plugin runs at build time).
      const schema = (await getJson(`http://127.0.0.1:${portB}/api/schema/`, shared.INIT_PERSONAL_API_KEY)).body.components.schemas;
      expect(schema.CreateFeatureFlagDto.required).toEqual(['key']);
      expect(Object.keys(schema.CreateFeatureFlagDto.properties)).toEqual(
        expect.arrayContaining(['key', 'name', 'filters', 'deleted', 'active', 'created_at', 'ensure_experience_continuity', 'rollback_conditions', 'performed_rollback']),
      );
      expect(Object.keys(schema.FeatureFlagDto.properties)).toEqual(
        expect.arrayContaining(['id', 'key', 'filters', 'created_by', 'is_simple_flag', 'rollout_percentage', 'experiment_set', 'can_edit']),
      );
      expect(schema.CreateRoleAccessDto.required).toEqual(['role_id']);
      expect(Object.keys(schema.RoleAccessDto.properties)).toEqual(expect.arrayContaining(['id', 'feature_flag', 'role', 'added_at', 'updated_at']));
      expect(Object.keys(schema.RoleDto.properties)).toEqual(
        expect.arrayContaining(['id', 'name', 'feature_flags_access_level', 'created_at', 'created_by', 'members', 'associated_flags']),
      );
      expect(Object.keys(schema.BulkDeletePersonsDto.properties).sort()).toEqual(['delete_events', 'delete_recordings', 'distinct_ids', 'ids', 'keep_person']);
      expect(schema.BulkDeletePersonsDto.required ?? []).toEqual([]);
      expect(Object.keys(schema.BulkDeletePersonsResultDto.properties).sort()).toEqual(
        ['deletion_errors', 'events_queued_for_deletion', 'persons_deleted', 'persons_found', 'recordings_queued_for_deletion'],
      );

      // Redocly's recommended rules find no error in the whole document, and warn only that the forbidden hard
      // deletes (always 405) have no success response.
      const documentText = await (await fetch(`http://127.0.0.1:${portB}/api/schema/`)).text();
      expect(await openApiLintProblems(documentText)).toEqual([
        'warn operation-2xx-response at #/paths/~1api~1projects~1{project_id}~1feature_flags~1{id}/delete/responses',
        'warn operation-2xx-response at #/paths/~1api~1projects~1{project_id}~1cohorts~1{id}/delete/responses',
        'warn operation-2xx-response at #/paths/~1api~1projects~1{project_id}~1actions~1{id}/delete/responses',
        'warn operation-2xx-response at #/paths/~1api~1projects~1{project_id}~1insights~1{id}/delete/responses',
        'warn operation-2xx-response at #/paths/~1api~1environments~1{project_id}~1insights~1{id}/delete/responses',
        'warn operation-2xx-response at #/paths/~1api~1projects~1{project_id}~1dashboards~1{id}/delete/responses',
      ]);

      await expectFlagChangesToReachOtherProcess(`http://127.0.0.1:${portA}`, `http://127.0.0.1:${portB}`, shared);
      await expectInsightResultsSharedWithOtherProcess(`http://127.0.0.1:${portA}`, `http://127.0.0.1:${portB}`, shared);
      await expectLargeBatchStored(`http://127.0.0.1:${portA}`, `http://127.0.0.1:${portB}`, shared);
      // Its jobs' data was kept beside them in Redis, and went once they completed.
      expect(await payloadKeysLeft(shared.QUEUE_PREFIX)).toEqual([]);

      // The worker lowered its CPU priority on every thread (WORKER_NICE, 10 by default); the APIs' main threads did not
      // (their ClickHouse query threads run at ANALYTICS_QUERY_THREAD_PRIORITY, 10 by default, by design).
      expect(new Set(threadNiceValues(worker.child.pid!))).toEqual(new Set([10]));
      expect(mainThreadNice(apiA.child.pid!)).toBe(0);

      // The worker role serves no HTTP.
      await expect(fetch(`http://127.0.0.1:${workerPort}/_health`)).rejects.toThrow();
      const exits = await Promise.all([apiA.terminate(), apiB.terminate(), worker.terminate()]);
      expect(exits.map((e) => e.code)).toEqual([0, 0, 0]);
      exits.forEach((e) => expect(e.ms).toBeLessThan(25_000));
    });
  });

  describe('an API process under gzip bombs whose trailer lies', () => {
    let url: string;
    beforeAll(async () => {
      url = await createEmptyDatabase('bombs');
    });

    it('answers bombs claiming 1 KB or the cap with 413, and its memory never rises by half a decompression cap', async () => {
      const port = await freePort();
      // Inflated to the cap, one bomb's output alone would be the cap; counted, their memory does not depend on it.
      const cap = 192 * 1024 * 1024;
      const projectKey = 'phc_FixedProjectKeyForAutomation0123456789abc';
      const api = start({
        DATABASE_URL: url,
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_PREFIX: `hbbombs${runId()}`,
        INIT_PROJECT_API_KEY: projectKey,
        ROLE: 'api',
        PORT: String(port),
        MAX_DECOMPRESSED_BYTES: String(cap),
      });
      const base = `http://127.0.0.1:${port}`;
      await api.waitFor(`${base}/_readyz`);
      const post = (body: Buffer | string) => fetch(`${base}/batch/`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body });
      // A 1.1 MB batch starts the payload worker, so its start is not counted below, and leaves no freed cap of
      // output for the allocator to hand out again unseen.
      const large = JSON.stringify({ api_key: projectKey, batch: [{ event: 'large', distinct_id: 'd', properties: { blob: 'x'.repeat(1_100_000) } }] });
      expect((await post(large)).status).toBe(200);

      // Each inflates to just past the cap. Claiming 1 KB, nothing refuses it before inflating; claiming the cap, it
      // goes straight to the thread, which trusts no more than 64 bytes out per byte sent.
      const bomb = gzipSync(Buffer.alloc(cap + 1024 * 1024, 0x20));
      const [small, atCap] = [1024, cap].map((claimed) => {
        const copy = Buffer.from(bomb);
        copy.writeUInt32LE(claimed, copy.length - 4);
        return copy;
      });
      const peak = peakRssOf(api.child.pid!);
      const answers = await Promise.all([small, atCap, small, atCap, small, atCap, small, atCap].map(async (body) => `${(await post(body)).status}`));
      expect(answers).toEqual(Array(8).fill('413'));
      const grewMb = peak() / 1048576;
      console.log(`API peak RSS under 8 forged-size bombs: +${grewMb.toFixed(1)} MB (cap ${cap / 1048576} MB)`);
      expect(grewMb).toBeLessThan(cap / 1048576 / 2);
      expect((await api.terminate()).code).toBe(0);
    }, 120_000);
  });

  it('refuses to start on bad configuration, naming the variable', async () => {
    const bad = start({ PORT: 'abc', DATA_DIR: '/tmp/never-used' });
    expect(await bad.exit()).toBe(2);
    expect(bad.stderr.trim()).toBe('Invalid configuration: PORT must be an integer between 0 and 65535 (got "abc")');
  });

  it('never echoes a secret in a configuration error', async () => {
    const bad = start({ INIT_PERSONAL_API_KEY: 'phx_short!secret', DATA_DIR: '/tmp/never-used' });
    expect(await bad.exit()).toBe(2);
    expect(bad.stderr).toContain('INIT_PERSONAL_API_KEY');
    expect(bad.stderr).not.toContain('short!secret');
  });
});
