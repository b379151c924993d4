import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import IORedis from 'ioredis';
import { Client } from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { sendJson } from '../support/capture-client';
import { waitForQueuesIdle } from '../support/ingestion';
import { PrivatePostgres, PrivateRedis } from '../support/private-servers';
import { freePort, ServiceProcess } from '../support/service-process';
import { startTestApp, createTestDatabase, TestApp } from '../support/test-app';
import { runId, TEST_REDIS_URL } from '../support/test-env';

const PROJECT_KEY = 'phc_FaultTestProjectKey000000000000000000000';
const PERSONAL_KEY = 'phx_FaultTestPersonalKey00000000000000000000';
const UNAVAILABLE = { type: 'server_error', code: 'server_error', detail: 'Unable to store event. Please try again.', attr: null };

function eventsFor(label: string, count: number) {
  return Array.from({ length: count }, (_, i) => ({ event: label, distinct_id: `${label}-${i % 50}`, uuid: uuidv7(), properties: { i } }));
}

async function postBatch(baseUrl: string, batch: Array<Record<string, unknown>>): Promise<number> {
  const res = await fetch(`${baseUrl}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: PROJECT_KEY, batch }) });
  const text = await res.text();
  if (res.status !== 200) process.stdout.write(`postBatch ${res.status} ${text}\n`);
  return res.status;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function countIn(url: string, sql: string): Promise<number> {
  const client = new Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query(sql)).rows[0].n;
  } finally {
    await client.end();
  }
}

describe('Faults', () => {
  describe('Redis hangs, then disappears', () => {
    const redis = new PrivateRedis();
    let t: TestApp;
    const acknowledged = new Set<string>();
    const capture = async () => {
      const uuid = randomUUID();
      const started = performance.now();
      const res = await sendJson(t, '/capture/', { api_key: t.keys.projectApiKey, event: 'through_outage', distinct_id: 'o', uuid });
      if (res.status === 200) acknowledged.add(uuid);
      return { status: res.status, body: res.text ? JSON.parse(res.text) : null, ms: performance.now() - started };
    };

    beforeAll(async () => {
      await redis.start();
      t = await startTestApp({ env: { ROLE: 'all', REDIS_URL: redis.url() } });
    });
    afterAll(async () => {
      redis.thaw();
      await t.close();
      await redis.destroy();
    });

    it('answers 503 within 2 s while Redis is frozen, and recovers by itself', async () => {
      expect((await capture()).status).toBe(200);
      redis.freeze();
      const during = await capture();
      expect(during).toMatchObject({ status: 503, body: UNAVAILABLE });
      expect(during.ms).toBeLessThan(2000);
      const ready = await t.http.get('/_readyz', { key: null });
      expect(ready.status).toBe(503);
      expect(ready.body.checks.queue).toBe('unreachable');
      redis.thaw();
      await until('capture to recover', async () => ((await capture()).status === 200 ? true : undefined), 10_000);
    });

    it('answers 503 at once while Redis is down, and recovers when it restarts (AOF keeps queued jobs)', async () => {
      await redis.kill();
      const during = await capture();
      expect(during).toMatchObject({ status: 503, body: UNAVAILABLE });
      expect(during.ms).toBeLessThan(2000);
      // Workers wait for Redis quietly: a fetch loop that spins would burn a core and starve timers.
      const cpuBefore = process.cpuUsage();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const cpu = process.cpuUsage(cpuBefore);
      expect((cpu.user + cpu.system) / 1000).toBeLessThan(300);
      await redis.start();
      await until('capture to recover', async () => ((await capture()).status === 200 ? true : undefined), 20_000);
    });

    it('stores every acknowledged event exactly once', async () => {
      // A job that was active when Redis went away runs again only once its lock (5 s) has lapsed and the
      // stalled-job check (every 2 s) has found it: up to 7 s after Redis is back; the wait allows 30.
      await waitForQueuesIdle(t, 30_000);
      const rows = await t.sql<{ uuid: string; n: number }>(`SELECT uuid::text, count(*)::int AS n FROM event WHERE event = 'through_outage' GROUP BY uuid`);
      const stored = new Map(rows.map((row) => [row.uuid, row.n]));
      for (const uuid of acknowledged) expect({ uuid, n: stored.get(uuid) }).toEqual({ uuid, n: 1 });
      expect(acknowledged.size).toBeGreaterThanOrEqual(3);
    }, 60_000);
  });

  describe('a worker killed with SIGKILL in the middle of its jobs', () => {
    const services: ServiceProcess[] = [];
    afterAll(() => services.forEach((service) => service.kill()));

    it('leaves every acknowledged event stored exactly once after another worker takes over', async () => {
      const url = await createTestDatabase();
      const env = {
        DATABASE_URL: url,
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_PREFIX: `hbkill${runId()}`,
        INIT_PROJECT_API_KEY: PROJECT_KEY,
        INIT_PERSONAL_API_KEY: PERSONAL_KEY,
        LOG_LEVEL: 'warn',
      };
      const port = await freePort();
      const api = new ServiceProcess({ ...env, ROLE: 'api', PORT: String(port) });
      services.push(api);
      await api.waitFor(`http://127.0.0.1:${port}/_readyz`);
      const baseUrl = `http://127.0.0.1:${port}`;
      const total = 40 * 500;
      const batches = Array.from({ length: 40 }, (_, i) => eventsFor(`killed_${i % 4}`, 500));
      for (let i = 0; i < batches.length; i += 4) {
        const statuses = await Promise.all(batches.slice(i, i + 4).map((batch) => postBatch(baseUrl, batch)));
        expect(statuses).toEqual([200, 200, 200, 200]);
      }
      const count = `SELECT count(*)::int AS n FROM event WHERE event LIKE 'killed\\_%'`;
      const first = new ServiceProcess({ ...env, ROLE: 'worker', PORT: String(await freePort()) });
      services.push(first);
      const atKill = await until('the first events to be stored', async () => {
        const n = await countIn(url, count);
        return n > 0 ? n : undefined;
      }, 30_000);
      first.kill();
      const killedAt = performance.now();
      expect(atKill).toBeLessThan(total);

      const second = new ServiceProcess({ ...env, ROLE: 'worker', PORT: String(await freePort()) });
      services.push(second);
      // How long the killed worker's partition stood still: until the stored count moves again (printed, not timed).
      const afterKill = await countIn(url, count);
      await until('storing to resume', async () => ((await countIn(url, count)) > afterKill ? true : undefined), 60_000);
      process.stderr.write(`[faults] worker SIGKILL: storing resumed ${Math.round(performance.now() - killedAt)} ms after the kill\n`);
      await until('every event to be stored', async () => ((await countIn(url, count)) >= total ? true : undefined), 90_000);
      expect(await countIn(url, count)).toBe(total);
      expect(await countIn(url, `SELECT count(DISTINCT uuid)::int AS n FROM event WHERE event LIKE 'killed\\_%'`)).toBe(total);
      expect((await second.terminate()).code).toBe(0);
      expect((await api.terminate()).code).toBe(0);
    }, 150_000);
  });

  describe('the database goes down while workers run', () => {
    const postgres = new PrivatePostgres();
    let service: ServiceProcess;
    afterAll(() => {
      service?.kill();
      postgres.destroy();
    });

    it('keeps accepting into Redis, waits, and stores everything once when the database returns', async () => {
      await postgres.start();
      const url = await postgres.createDatabase('hogbase');
      const prefix = `hbpgdown${runId()}`;
      const port = await freePort();
      const baseUrl = `http://127.0.0.1:${port}`;
      service = new ServiceProcess({
        DATABASE_URL: url,
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_PREFIX: prefix,
        INIT_PROJECT_API_KEY: PROJECT_KEY,
        INIT_PERSONAL_API_KEY: PERSONAL_KEY,
        ROLE: 'all',
        PORT: String(port),
        LOG_LEVEL: 'warn',
      });
      await service.waitFor(`${baseUrl}/_readyz`);
      const count = `SELECT count(*)::int AS n FROM event WHERE event IN ('before_outage', 'during_outage')`;
      expect(await postBatch(baseUrl, eventsFor('before_outage', 100))).toBe(200);
      await until('the first batch', async () => ((await countIn(url, count)) === 100 ? true : undefined), 15_000);

      postgres.stop();
      for (let i = 0; i < 5; i++) expect(await postBatch(baseUrl, eventsFor('during_outage', 100))).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(service.child.exitCode).toBeNull();
      expect((await fetch(`${baseUrl}/_readyz`)).status).toBe(503);

      await postgres.start();
      await until('every event to be stored', async () => ((await countIn(url, count)) >= 600 ? true : undefined), 60_000);
      expect(await countIn(url, count)).toBe(600);
      const redis = new IORedis(TEST_REDIS_URL);
      const failed = await Promise.all([0, 1, 2, 3].map((p) => redis.zcard(`${prefix}:ingestion-${p}:failed`)));
      redis.disconnect();
      expect(failed).toEqual([0, 0, 0, 0]);
      expect((await service.terminate()).code).toBe(0);

      // The outage was logged (the worker's retries), and no line carries a distinct id or a key: a query error's
      // SQL parameters are lists of distinct ids.
      const logs = service.stdout + service.stderr;
      expect(logs).toMatch(/"msg":"transient failure, retrying"/);
      for (const secret of ['before_outage-', 'during_outage-', PROJECT_KEY, PERSONAL_KEY]) expect({ secret, found: logs.includes(secret) }).toEqual({ secret, found: false });
    }, 120_000);
  });

  describe('the analytics copy killed with SIGKILL in the middle of a batch', () => {
    const services: ServiceProcess[] = [];
    afterAll(() => services.forEach((service) => service.kill()));

    it('undoes the batch that never committed, then holds every event exactly once', async () => {
      const url = await createTestDatabase();
      const dataDir = mkdtempSync(join(tmpdir(), `hogbase-t${runId()}-copykill-`));
      const env = { DATABASE_URL: url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: `hbcopykill${runId()}`, DATA_DIR: dataDir, INIT_PROJECT_API_KEY: PROJECT_KEY, INIT_PERSONAL_API_KEY: PERSONAL_KEY, LOG_LEVEL: 'warn', ROLE: 'api' };
      const port = await freePort();
      const baseUrl = `http://127.0.0.1:${port}`;
      const total = 200_000;
      const trend = `${baseUrl}/api/projects/1/insights/trend/?events=${encodeURIComponent(JSON.stringify([{ id: 'copy_killed' }]))}&display=BoldNumber&date_from=-1d&refresh=true`;
      const counted = async (): Promise<number | undefined> => {
        const res = await fetch(trend, { headers: { authorization: `Bearer ${PERSONAL_KEY}` } });
        return res.status === 200 ? ((await res.json()) as { result: Array<{ aggregated_value: number }> }).result[0].aggregated_value : undefined;
      };
      // The copy streams a batch's rows table by table with COPY … TO STDOUT on its own connection, after the batch
      // is marked started in ClickHouse and before it is marked committed: seen copying persons (its events already
      // written), the process is killed midway.
      const copying = `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE 'COPY (SELECT project_id, id,%FROM person%'`;

      const first = new ServiceProcess({ ...env, PORT: String(port) });
      services.push(first);
      await first.waitFor(`${baseUrl}/_readyz`);
      expect(await until('the first build', counted, 30_000)).toBe(0);
      // Events and persons in one transaction, so in one batch: the persons are copied after the events are
      // written to ClickHouse, and the kill lands while they stream.
      await countIn(url, `WITH persons AS (INSERT INTO person (project_id, uuid, properties)
          SELECT 1, gen_random_uuid(), jsonb_build_object('n', i, 'note', repeat('x', 200)) FROM generate_series(1, ${total}) AS i RETURNING 1),
        added AS (INSERT INTO event (project_id, uuid, event, distinct_id, properties, timestamp)
          SELECT 1, gen_random_uuid(), 'copy_killed', 'copy-killed-' || (i % 1000), jsonb_build_object('i', i), now() - interval '1 hour'
          FROM generate_series(1, ${total}) AS i RETURNING 1)
        SELECT (SELECT count(*) FROM persons)::int + (SELECT count(*) FROM added)::int AS n`);
      const watcher = new Client({ connectionString: url });
      await watcher.connect();
      try {
        const deadline = performance.now() + 30_000;
        while ((await watcher.query(copying)).rows[0].n === 0) {
          if (performance.now() > deadline) throw new Error('timed out waiting for the copy to stream the batch');
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      } finally {
        await watcher.end();
      }
      first.kill();
      await first.exit();

      const second = new ServiceProcess({ ...env, PORT: String(port) });
      services.push(second);
      await second.waitFor(`${baseUrl}/_readyz`);
      // An answer may come from the copy as it stood while the refresh runs; once it counts them all, exactly them.
      const caughtUp = await until('the copy to hold the events', async () => {
        const n = await counted();
        return n !== undefined && n >= total ? n : undefined;
      }, 90_000);
      expect(caughtUp).toBe(total);
      expect(second.stdout + second.stderr).toMatch(/analytics copy batch \d+ did not commit: undoing it/);
      expect((await second.terminate()).code).toBe(0);
      rmSync(dataDir, { recursive: true, force: true });
    }, 150_000);
  });
});
