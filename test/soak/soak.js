'use strict';
// `npm run soak`: the service under a steady mixed load for SOAK_MINUTES (default 30), with one worker SIGKILL at a
// third of the way and one Redis SIGKILL + restart (AOF) at two thirds. Prints, per window, each route's count,
// p50/p99 and 5xx, ingestion lag percentiles, the processes' RSS and CPU and how busy the machine was; at the end,
// acknowledged against stored events (lost, duplicated). Uses the machine's PostgreSQL (a scratch database) and a
// Redis of its own.
const { spawn, execFileSync } = require('node:child_process');
const { randomUUID } = require('node:crypto');
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { Pool } = require('undici');
const { Client } = require('pg');
const { POSTGRES, nodeFlags, freePort, waitForHttp, sql, databaseUrl, percentile, cpuSecondsOf } = require('../bench/bench-support');

const MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
const WINDOWS = Number(process.env.SOAK_WINDOWS ?? Math.min(30, Math.max(6, Math.round(MINUTES * 2))));
const PROJECT_KEY = 'phc_SoakProjectKey0000000000000000000000000000';
const PERSONAL_KEY = 'phx_SoakPersonalKey000000000000000000000000000';
/**
 * Requests per second per route: a steady mix of what SDKs and scripts send, about 350 events/s. The worker keeps up
 * with it on 2 cores beside everything else; 200 single captures a second (one small job each) already saturate them.
 */
const ROUTES = [
  { name: 'capture', rate: 100 },
  { name: 'batch (50 events)', rate: 5 },
  { name: 'flags', rate: 100 },
  { name: 'management reads', rate: 5 },
];
const ROOT = join(__dirname, '..', '..');
/** Set while a run holds processes and a database: what a signal calls to remove them. */
let abort = null;

function rssMb(pid) {
  try {
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024);
  } catch {
    return 0;
  }
}

function startService(env) {
  const child = spawn(process.execPath, [...nodeFlags(), 'dist/main.js'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  return child;
}

async function startRedis(dir, port) {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec', '--dir', dir, '--maxmemory-policy', 'noeviction'], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    try {
      execFileSync('redis-cli', ['-p', String(port), 'ping'], { stdio: 'pipe' });
      return child;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error('redis did not start');
}

/** Per-window and overall latency and status counts of one route. */
function routeStats() {
  return { latencies: [], all: [], fivexx: 0, window5xx: 0, errors: 0, count: 0, outage5xx: 0 };
}

/** Busy and total CPU time of the whole machine so far, in clock ticks (all cores), from /proc/stat. */
function machineTicks() {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, n) => sum + n, 0);
  return { busy: total - fields[3] - fields[4], total }; // idle and iowait are not busy
}

/**
 * Per window: the CPU the API and the worker used (% of one core) and how busy the machine was (% of all its cores),
 * so a lag or latency spike can be told apart: the service's own work, or a machine with no CPU to spare.
 */
function cpuMeter() {
  let last = null;
  return (apiPid, workerPid) => {
    const now = { at: performance.now(), api: cpuSecondsOf([apiPid]), workerPid, worker: cpuSecondsOf([workerPid]), machine: machineTicks() };
    const previous = last;
    last = now;
    if (!previous) return '';
    const seconds = (now.at - previous.at) / 1000;
    // A new worker (after the kill) counts from its start.
    const worker = now.worker - (previous.workerPid === workerPid ? previous.worker : 0);
    const busy = (now.machine.busy - previous.machine.busy) / Math.max(1, now.machine.total - previous.machine.total);
    return `CPU api ${Math.round((100 * (now.api - previous.api)) / seconds)}% worker ${Math.round((100 * worker) / seconds)}% machine ${Math.round(100 * busy)}%`;
  };
}

async function main() {
  const run = Date.now().toString(36);
  const database = `hogbase_soak_${run}`;
  await sql(POSTGRES, `CREATE DATABASE ${database}`);
  const dbUrl = databaseUrl(POSTGRES, database);
  const redisDir = mkdtempSync(join(tmpdir(), 'hogbase-soak-redis-'));
  const redisPort = await freePort();
  let redis = await startRedis(redisDir, redisPort);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = { DATABASE_URL: dbUrl, REDIS_URL: `redis://127.0.0.1:${redisPort}`, INIT_PROJECT_API_KEY: PROJECT_KEY, INIT_PERSONAL_API_KEY: PERSONAL_KEY, LOG_LEVEL: 'warn' };
  const api = startService({ ...env, ROLE: 'api', PORT: String(port) });
  let worker = startService({ ...env, ROLE: 'worker', PORT: String(await freePort()) });
  const db = new Client({ connectionString: dbUrl });
  const cleanup = async () => {
    await db.end().catch(() => undefined);
    api.kill('SIGTERM');
    worker.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 3000));
    redis.kill('SIGKILL');
    rmSync(redisDir, { recursive: true, force: true });
    await sql(POSTGRES, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
  };
  abort = () => cleanup().finally(() => process.exit(130));
  try {
    await waitForHttp(`${base}/_readyz`);
    await db.connect();
    const flagsUrl = `${base}/api/projects/@current/feature_flags/`;
    for (let i = 0; i < 10; i++) {
      await fetch(flagsUrl, {
        method: 'POST',
        headers: { authorization: `Bearer ${PERSONAL_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ key: `soak-${i}`, filters: { groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }], rollout_percentage: 50 }] } }),
      });
    }
    process.stdout.write(`hogbase soak — ${MINUTES} min, ${WINDOWS} windows; routes: ${ROUTES.map((r) => `${r.name} ${r.rate}/s`).join(', ')}\n`);
    const result = await drive({ base, db, api, getWorker: () => worker, faults: {
      killWorker: async () => {
        worker.kill('SIGKILL');
        await new Promise((resolve) => setTimeout(resolve, 2000));
        worker = startService({ ...env, ROLE: 'worker', PORT: String(await freePort()) });
      },
      restartRedis: async () => {
        redis.kill('SIGKILL');
        await new Promise((resolve) => setTimeout(resolve, 3000));
        redis = await startRedis(redisDir, redisPort);
      },
    } });
    await summarise(result, db);
  } finally {
    abort = null;
    await cleanup();
  }
}

/** The open-loop load with its faults; returns what was acknowledged and measured. */
async function drive({ base, db, api, getWorker, faults }) {
  const started = performance.now();
  const state = { started, outage: null, stats: new Map(ROUTES.map((route) => [route.name, routeStats()])), acknowledged: new Map(), lagProbe: new Map() };
  const lags = { window: [], all: [] };
  const pool = new Pool(base, { connections: 32 });
  const stopLoad = startLoad(pool, state);
  const stopProbe = startLagProbe(db, state.lagProbe, lags);
  const rss = await runWindows(state, lags, { api, getWorker, faults });
  stopLoad();
  await new Promise((resolve) => setTimeout(resolve, 3000)); // replies in flight
  stopProbe();
  await pool.close();
  return { stats: state.stats, acknowledged: state.acknowledged, lags, rss };
}

/** Every route at its rate, open loop: whatever has come due goes out every 5 ms. */
function startLoad(pool, state) {
  const counters = new Map(ROUTES.map((route) => [route.name, 0]));
  const ticker = setInterval(() => {
    const elapsed = performance.now() - state.started;
    for (const route of ROUTES) {
      // Request n is due at n / rate: by `elapsed`, requests 0 … floor(elapsed × rate) are (one more than the floor).
      const due = Math.floor((elapsed * route.rate) / 1000) + 1;
      for (let n = counters.get(route.name); n < due; n++) send(pool, state, route, n, state.started + (n * 1000) / route.rate);
      counters.set(route.name, Math.max(counters.get(route.name), due));
    }
  }, 5);
  return () => clearInterval(ticker);
}

/** `due` is when the request was due, so a late ticker counts against the latency, as an open-loop driver measures. */
function send(pool, state, route, n, due) {
  const stat = state.stats.get(route.name);
  const request = requestFor(route.name, n);
  pool
    .request(request.options)
    .then(async (res) => {
      await res.body.dump();
      const now = performance.now();
      stat.count++;
      stat.latencies.push(now - due);
      if (res.statusCode >= 500) {
        stat.fivexx++;
        stat.window5xx++;
        const at = now - state.started;
        if (state.outage && at >= state.outage[0] && at <= state.outage[1] + 15_000) stat.outage5xx++;
      } else if (res.statusCode === 200 && request.uuids) {
        for (const uuid of request.uuids) state.acknowledged.set(uuid, now);
        if (n % 10 === 0) state.lagProbe.set(request.uuids[0], now);
      }
    })
    .catch(() => stat.errors++);
}

/** Every 250 ms, which sampled acknowledged events are stored now: their lag from the 200. */
function startLagProbe(db, lagProbe, lags) {
  const prober = setInterval(async () => {
    const pending = [...lagProbe.keys()].slice(0, 2000);
    if (pending.length === 0) return;
    const { rows } = await db.query('SELECT uuid::text FROM event_uuid WHERE project_id = 1 AND uuid = ANY($1::uuid[])', [pending]).catch(() => ({ rows: [] }));
    const now = performance.now();
    for (const { uuid } of rows) {
      if (!lagProbe.has(uuid)) continue; // a probe still running from before already took it
      const lag = now - lagProbe.get(uuid);
      lagProbe.delete(uuid);
      lags.window.push(lag);
      lags.all.push(lag);
    }
  }, 250);
  return () => clearInterval(prober);
}

/** Prints each window and sets off the faults on time; the RSS samples. */
async function runWindows(state, lags, { api, getWorker, faults }) {
  const durationMs = MINUTES * 60_000;
  const windowMs = durationMs / WINDOWS;
  const rss = [];
  const cpu = cpuMeter();
  cpu(api.pid, getWorker().pid);
  let killed = false;
  let restarted = false;
  for (let w = 1; w <= WINDOWS; w++) {
    await new Promise((resolve) => setTimeout(resolve, state.started + w * windowMs - performance.now()));
    const at = performance.now() - state.started;
    rss.push({ at, api: rssMb(api.pid), worker: rssMb(getWorker().pid) });
    printWindow(w, at, state.stats, lags, rss[rss.length - 1], cpu(api.pid, getWorker().pid));
    if (!killed && at >= durationMs / 3) {
      killed = true;
      process.stdout.write('  ↯ worker SIGKILL (a new one starts 2 s later)\n');
      void faults.killWorker();
    }
    if (!restarted && at >= (2 * durationMs) / 3) {
      restarted = true;
      process.stdout.write('  ↯ Redis SIGKILL, restarted from its AOF 3 s later\n');
      const begin = performance.now() - state.started;
      state.outage = [begin, begin + 3_000];
      void faults.restartRedis().then(() => (state.outage = [begin, performance.now() - state.started]));
    }
  }
  return rss;
}

function requestFor(route, n) {
  const json = { 'content-type': 'application/json' };
  const auth = { authorization: `Bearer ${PERSONAL_KEY}` };
  if (route === 'capture') {
    const uuid = randomUUID();
    const body = JSON.stringify({ api_key: PROJECT_KEY, event: 'soak_capture', distinct_id: `user-${n % 5000}`, uuid, properties: { $set: { plan: n % 2 ? 'pro' : 'free' } } });
    return { uuids: [uuid], options: { path: '/capture/', method: 'POST', headers: json, body } };
  }
  if (route === 'batch (50 events)') {
    const batch = Array.from({ length: 50 }, (_, i) => ({ event: 'soak_batch', distinct_id: `user-${(n * 50 + i) % 5000}`, uuid: randomUUID(), properties: { i } }));
    return { uuids: batch.map((e) => e.uuid), options: { path: '/batch/', method: 'POST', headers: json, body: JSON.stringify({ api_key: PROJECT_KEY, batch }) } };
  }
  if (route === 'flags') {
    return { options: { path: '/flags/?v=2', method: 'POST', headers: json, body: JSON.stringify({ token: PROJECT_KEY, distinct_id: `user-${n % 5000}` }) } };
  }
  const path = n % 2 ? '/api/projects/@current/feature_flags/' : '/api/projects/@current/persons/?limit=20';
  return { options: { path, method: 'GET', headers: auth } };
}

function printWindow(w, at, stats, lags, memory, cpu) {
  const parts = [];
  for (const [name, stat] of stats) {
    const sorted = Float64Array.from(stat.latencies).sort();
    parts.push(`${name.split(' ')[0]} ${sorted.length} p50 ${percentile(sorted, 0.5)} p99 ${percentile(sorted, 0.99)}${stat.window5xx ? ` 5xx ${stat.window5xx}` : ''}`);
    for (const latency of stat.latencies) stat.all.push(latency);
    stat.latencies = [];
    stat.window5xx = 0;
  }
  const lag = Float64Array.from(lags.window).sort();
  lags.window = [];
  process.stdout.write(
    `  [${String(w).padStart(2)}] ${(at / 60_000).toFixed(1).padStart(5)} min | ${parts.join(' | ')} | lag p50 ${percentile(lag, 0.5)} p99 ${percentile(lag, 0.99)} ms | RSS api ${memory.api} worker ${memory.worker} MB | ${cpu}\n`,
  );
}

async function summarise({ stats, acknowledged, lags, rss }, db) {
  // Everything acknowledged must be stored: wait for the queues to drain (at most 5 minutes).
  const deadline = performance.now() + 300_000;
  let stored = 0;
  while (performance.now() < deadline) {
    stored = Number((await db.query(`SELECT count(*) AS n FROM event WHERE event IN ('soak_capture', 'soak_batch')`)).rows[0].n);
    if (stored >= acknowledged.size) break;
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  const { rows } = await db.query(`SELECT uuid::text FROM event WHERE event IN ('soak_capture', 'soak_batch')`);
  const storedSet = new Set(rows.map((row) => row.uuid));
  let lost = 0;
  for (const uuid of acknowledged.keys()) if (!storedSet.has(uuid)) lost++;
  const duplicated = rows.length - storedSet.size;
  const lag = Float64Array.from(lags.all).sort();
  const warm = rss.slice(Math.floor(rss.length / 6));
  process.stdout.write('\nsummary\n');
  for (const [name, stat] of stats) {
    const sorted = Float64Array.from(stat.all).sort();
    process.stdout.write(`  ${name.padEnd(20)} ${String(stat.count).padStart(8)} requests  p50 ${percentile(sorted, 0.5)} ms  p99 ${percentile(sorted, 0.99)} ms  5xx ${stat.fivexx} (${stat.fivexx - stat.outage5xx} outside the Redis outage)  errors ${stat.errors}\n`);
  }
  process.stdout.write(`  ingestion lag (sampled)  p50 ${percentile(lag, 0.5)} ms  p99 ${percentile(lag, 0.99)} ms  max ${lag.length ? Math.round(lag[lag.length - 1]) : 0} ms\n`);
  process.stdout.write(`  RSS api   after warm-up ${warm[0]?.api} MB → end ${rss[rss.length - 1]?.api} MB (max ${Math.max(...warm.map((r) => r.api))} MB)\n`);
  process.stdout.write(`  RSS worker after warm-up ${warm[0]?.worker} MB → end ${rss[rss.length - 1]?.worker} MB (max ${Math.max(...warm.map((r) => r.worker))} MB)\n`);
  // Stored without a 200: the queue took them but the reply failed (the Redis restart); a client's retry dedupes by uuid.
  const unacknowledged = storedSet.size - (acknowledged.size - lost);
  process.stdout.write(`  events acknowledged ${acknowledged.size}, stored ${storedSet.size} (${unacknowledged} of them without a 200), lost ${lost}, duplicated ${duplicated}\n`);
  if (lost > 0 || duplicated > 0) process.exitCode = 1;
}

// Ctrl-C stops the load and still removes the processes, the Redis and the database it made.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (stopping) process.exit(130);
    stopping = true;
    process.stdout.write(`\n${signal}: stopping early, cleaning up\n`);
    abort?.();
  });
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
