'use strict';
// `npm run bench`: the ingestion hot paths under load on this machine, each beside a reference measured
// in the same run (a bare Fastify route, a raw PostgreSQL COPY). Prints a table; changes nothing but
// the scratch database and Redis keys it creates and removes.
const { randomUUID } = require('node:crypto');
const { join } = require('node:path');
const os = require('node:os');
const { Client } = require('pg');
const { from: copyFrom } = require('pg-copy-streams');
const { pipeline } = require('node:stream/promises');
const { Readable } = require('node:stream');
const { nodeFlags, POSTGRES, REDIS, freePort, waitForHttp, startProcess, load, pacedLoad, sql, databaseUrl, otherProcessesCpu, removeRedisKeys } = require('./bench-support');
const { runDataApi } = require('./data-api');
const { runDecide } = require('./decide-bench');
const { runAnalytics } = require('./analytics-bench');
const { runHostile } = require('./hostile-bench');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
const PERSIST_SECONDS = Math.max(30, Number(process.env.BENCH_PERSIST_SECONDS ?? 30));
const PROJECT_KEY = 'phc_BenchmarkProjectKey00000000000000000000000';
/** The capture latency target's rate, driven open loop over 16 keep-alive connections for ours and the reference alike. */
const CAPTURE_RATE = 2000;
const run = `${Date.now().toString(36)}`;
const results = [];

function row(path, metric, value, reference) {
  results.push({ path, metric, value, reference: reference ?? '' });
  process.stdout.write(`  ${path.padEnd(34)} ${metric.padEnd(28)} ${String(value).padStart(12)}   ${reference ?? ''}\n`);
}

/** A realistic event mix over 10,000 people: page views, person updates, identifies. */
function eventBatch(size) {
  const batch = [];
  for (let i = 0; i < size; i++) {
    const user = Math.floor(Math.random() * 10_000);
    const roll = Math.random();
    if (roll < 0.05) {
      batch.push({ event: '$identify', distinct_id: `user-${user}`, properties: { $anon_distinct_id: `anon-${user}`, $set: { email: `u${user}@example.com` } } });
    } else if (roll < 0.15) {
      batch.push({ event: 'plan_changed', distinct_id: `anon-${user}`, properties: { $set: { plan: roll < 0.1 ? 'pro' : 'free', visits: i } } });
    } else {
      batch.push({ event: '$pageview', distinct_id: `anon-${user}`, properties: { $current_url: `https://example.com/p/${i % 50}`, $browser: 'Chrome', $lib: 'bench' } });
    }
  }
  return batch;
}

function pacedCapture(url, body, duration) {
  return pacedLoad({ url, body, duration, rate: CAPTURE_RATE, connections: 16 });
}

async function referenceFastify() {
  const port = await freePort();
  const bare = startProcess([join(__dirname, 'bare-fastify.js')], { PORT: String(port) });
  await new Promise((resolve) => setTimeout(resolve, 800));
  const url = `http://127.0.0.1:${port}/capture/`;
  // The same sequence as our route: a cold paced phase (JIT still compiling), then the measured warm one.
  const cold = await pacedCapture(url, '{"event":"x"}', WARMUP_SECONDS);
  const paced = await pacedCapture(url, '{"event":"x"}', SECONDS);
  const result = await load({ url, body: '{"event":"x"}', duration: SECONDS });
  await bare.stop();
  return { bare: result, barePaced: paced, bareCold: cold };
}

/**
 * Replays 200 pre-built /batch/ bodies (100 varied events each, no uuids: the server assigns them, so
 * every send is new) for `seconds`, so the load generator costs the two cores as little as possible.
 */
async function sendFor(baseUrl, seconds, connections) {
  const bodies = Array.from({ length: 200 }, () => JSON.stringify({ api_key: PROJECT_KEY, batch: eventBatch(100) }));
  const result = await load({
    url: `${baseUrl}/batch/`,
    duration: seconds,
    connections,
    requests: bodies.map((body) => ({ method: 'POST', body, headers: { 'content-type': 'application/json' } })),
  });
  return { accepted: (result.total - result.non2xx) * 100, failed: result.non2xx + result.errors };
}

/**
 * autocannon counts only the replies that arrived within a phase; requests still in flight at its end are
 * accepted and stored too. So the drain waits for the expected count and then for the count to settle.
 */
async function waitForSettledCount(url, expected, timeoutMs) {
  let last = await waitForCount(url, expected, timeoutMs);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const [{ n }] = await sql(url, 'SELECT count(*)::int AS n FROM event');
    if (n === last) return n;
    last = n;
  }
}

async function waitForCount(url, expected, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [{ n }] = await sql(url, 'SELECT count(*)::int AS n FROM event');
    if (n >= expected || Date.now() > deadline) return n;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Reference: the same number of event rows written by a single raw COPY. */
async function referenceCopy(url, rows) {
  const client = new Client({ connectionString: url });
  await client.connect();
  await client.query('CREATE TEMP TABLE copy_reference (LIKE event INCLUDING DEFAULTS)');
  const started = Date.now();
  const stream = client.query(copyFrom('COPY copy_reference (project_id, uuid, event, distinct_id, person_id, properties, elements_chain, timestamp) FROM STDIN'));
  let written = 0;
  const source = Readable.from(
    (function* () {
      while (written < rows) {
        const lines = eventBatch(1000).map((e) => `1\t${randomUUID()}\t${e.event}\t${e.distinct_id}\t\\N\t${JSON.stringify(e.properties).replace(/\\/g, '\\\\')}\t\t${new Date().toISOString()}\n`);
        written += lines.length;
        yield lines.join('');
      }
    })(),
  );
  await pipeline(source, stream);
  const seconds = (Date.now() - started) / 1000;
  await client.end();
  return Math.round(written / seconds);
}

function header() {
  process.stdout.write(`hogbase benchmark — ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown cpu'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}\n\n`);
}

async function main() {
  header();
  const database = `hogbase_bench_${run}`;
  await sql(POSTGRES, `CREATE DATABASE ${database}`);
  const url = databaseUrl(POSTGRES, database);
  const prefix = `hbbench${run}`;
  const apiPort = await freePort();
  const baseUrl = `http://127.0.0.1:${apiPort}`;
  const common = { INGESTION_PARTITIONS: process.env.INGESTION_PARTITIONS ?? '2', DATABASE_URL: url, REDIS_URL: REDIS, QUEUE_PREFIX: prefix, INIT_PROJECT_API_KEY: PROJECT_KEY, LOG_LEVEL: 'warn' };
  let api;
  let worker;
  try {
    process.stdout.write(`  ${'path'.padEnd(34)} ${'metric'.padEnd(28)} ${'value'.padStart(12)}   reference (same run)\n`);
    const { bare, barePaced, bareCold } = await referenceFastify();
    row('bare Fastify POST (reference)', 'requests/s (max)', bare.requestsPerSec, `p50 ${bare.p50} ms, p99 ${bare.p99} ms`);

    const flags = nodeFlags();
    api = startProcess([...flags, 'dist/main.js'], { ...common, ROLE: 'api', PORT: String(apiPort) });
    await waitForHttp(`${baseUrl}/_readyz`);
    worker = startProcess([...flags, 'dist/main.js'], { ...common, ROLE: 'worker', PORT: String(await freePort()) });
    await new Promise((resolve) => setTimeout(resolve, 1500));

    const single = JSON.stringify({ api_key: PROJECT_KEY, event: 'bench', distinct_id: 'bench-user', properties: { $current_url: 'https://example.com' } });
    // A service serves for hours, so the target is judged warm; the cold first seconds are printed too.
    const rate = CAPTURE_RATE.toLocaleString('en');
    const cold = await pacedCapture(`${baseUrl}/capture/`, single, WARMUP_SECONDS);
    row(`/capture/ at ${rate} req/s, first ${WARMUP_SECONDS} s (cold)`, 'p50 / p99 latency (ms)', `${cold.p50} / ${cold.p99}`, `${cold.requestsPerSec} req/s done; bare cold ${bareCold.p50} / ${bareCold.p99}`);
    const others = otherProcessesCpu([api.child.pid, worker.child.pid]);
    const paced = await pacedCapture(`${baseUrl}/capture/`, single, SECONDS);
    row(`/capture/ at ${rate} req/s (warm)`, 'p50 / p99 latency (ms)', `${paced.p50} / ${paced.p99}`, `${paced.requestsPerSec} req/s done, ${paced.non2xx + paced.errors} errors; bare ${barePaced.p50} / ${barePaced.p99}; other processes ${others.percent()} % CPU`);
    const max = await load({ url: `${baseUrl}/capture/`, body: single, duration: SECONDS });
    row('/capture/ (max)', 'requests/s', max.requestsPerSec, `p50 ${max.p50} ms, p99 ${max.p99} ms; bare Fastify ${bare.requestsPerSec}/s`);
    const batchBody = JSON.stringify({ api_key: PROJECT_KEY, batch: eventBatch(100) });
    const batch = await load({ url: `${baseUrl}/batch/`, body: batchBody, duration: SECONDS, connections: 16 });
    row('/batch/ 100 events (max)', 'events/s accepted', batch.requestsPerSec * 100, `p50 ${batch.p50} ms, p99 ${batch.p99} ms, ${batch.non2xx + batch.errors} errors`);

    if (process.env.BENCH_CAPTURE_ONLY) return;
    const [{ n: backlog }] = await sql(url, 'SELECT count(*)::int AS n FROM event');
    const drained = await waitForSettledCount(url, cold.total + paced.total + max.total + batch.total * 100, 300_000);
    row('drain of the phases above', 'events stored', drained, `${backlog} stored when the load stopped`);

    const before = drained;
    const started = Date.now();
    const sent = await sendFor(baseUrl, PERSIST_SECONDS, 8);
    const stored = await waitForCount(url, before + sent.accepted, 600_000);
    const seconds = (Date.now() - started) / 1000;
    const persistedRate = Math.round((stored - before) / seconds);
    const copyRate = await referenceCopy(url, Math.min(sent.accepted, 500_000));
    row(`/batch/ → stored, ${PERSIST_SECONDS} s with persons`, 'events/s persisted end to end', persistedRate, `raw COPY ${copyRate} rows/s; ${sent.accepted} acknowledged within the window, ${stored - before} stored (the difference: requests in flight when it closed), ${sent.failed} failed requests`);
    const [{ persons }] = await sql(url, 'SELECT count(*)::int AS persons FROM person');
    row('persons after the run', 'rows', persons, '');
    row('memory', 'peak RSS api / worker (MB)', `${api.peakRssMb()} / ${worker.peakRssMb()}`, '');
    // The management reads, on their own generated data set (BENCH_DATA_EVENTS / BENCH_DATA_PERSONS).
    if (!process.env.BENCH_SKIP_DATA_API) await runDataApi(row, run);
    // Insights on a data set of the same shape, and /capture/ beside them.
    if (!process.env.BENCH_SKIP_ANALYTICS) await runAnalytics(row, run);
    if (!process.env.BENCH_SKIP_DECIDE) await runDecide(row, run);
    if (!process.env.BENCH_SKIP_HOSTILE) await runHostile(row, run);
  } finally {
    if (api) await api.stop();
    if (worker) await worker.stop();
    await sql(POSTGRES, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await removeRedisKeys(REDIS, prefix);
  }
}

/** `node test/bench/run.js decide`, `… analytics` or `… hostile`: that phase alone (it makes its own data set and service). */
const PHASES = { decide: runDecide, analytics: runAnalytics, hostile: runHostile };

async function phaseOnly(phase) {
  header();
  process.stdout.write(`  ${'path'.padEnd(34)} ${'metric'.padEnd(28)} ${'value'.padStart(12)}   reference (same run)\n`);
  await phase(row, run);
}

const only = PHASES[process.argv[2]];
(only ? () => phaseOnly(only) : main)().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
