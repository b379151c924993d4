'use strict';
// Insights on a large project: the data set of data-api.js (BENCH_DATA_EVENTS events, default 10 million,
// over BENCH_DATA_PERSONS persons, default 1 million, 30 days) in a scratch database, copied by the service
// into its embedded ClickHouse (a scratch DATA_DIR); trends, stickiness, lifecycle, funnels, correlation,
// retention, paths and the persons behind them, each timed one request at a time with `refresh=true` (so every
// request computes, none is a cache hit), two of them beside raw PostgreSQL SQL over the same events (what a
// row store takes for the same scan); then `/capture/` at a fixed 1,000 req/s, alone and while insights run,
// since insights must never slow ingestion down. Run by `npm run bench` after the data-api phase
// (BENCH_SKIP_ANALYTICS=1 skips it), alone with `node test/bench/run.js analytics` after a build.
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { performance } = require('node:perf_hooks');
const { Client } = require('pg');
const { nodeFlags, POSTGRES, REDIS, freePort, waitForHttp, startProcess, pacedLoad, percentile, sql, databaseUrl, otherProcessesCpu, cpuSecondsOf, removeRedisKeys } = require('./bench-support');
const { generate, EVENTS, PERSONS, DAYS } = require('./data-api');

const ITERATIONS = Number(process.env.BENCH_ANALYTICS_ITERATIONS ?? 10);
/** e.g. `--cpu-prof --cpu-prof-dir=/tmp/profiles`, to see what bounds an insight. */
const NODE_FLAGS = nodeFlags();
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
const PROJECT_KEY = 'phc_BenchmarkAnalyticsProjectKey0000000000000';
const PERSONAL_KEY = 'phx_BenchmarkAnalyticsPersonalKey000000000000';
/** /metrics answers only to this (METRICS_TOKEN of the service started here). */
const METRICS_TOKEN = 'benchmark-analytics-metrics-token';
const CAPTURE_RATE = 1000;
/** Insights running at once beside the paced capture: enough to keep PostgreSQL busy on both cores. */
const INSIGHTS_AT_ONCE = 2;
const REFERENCE_SQL = `SELECT date_trunc('day', timestamp) AS d, count(*) FROM event
  WHERE project_id = 1 AND event = '$pageview' AND timestamp >= now() - interval '30 days' GROUP BY 1`;

/** The rows a 3-step funnel reads (its step events over 30 days), counted raw. */
const FUNNEL_REFERENCE_SQL = `SELECT count(*) FROM event
  WHERE project_id = 1 AND event IN ('$pageview', 'signed_up', 'checkout') AND timestamp >= now() - interval '30 days'`;

const json = (value) => encodeURIComponent(JSON.stringify(value));

/** [label, path under /api/projects/1/]; every one with refresh=true so the result cache is bypassed. */
function insightCases() {
  const pageviews = json([{ id: '$pageview' }]);
  const dau = json([{ id: '$pageview', math: 'dau' }]);
  // One whole day inside the data set, in UTC (the project's default timezone).
  const day = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
  const steps = json([{ id: '$pageview', order: 0 }, { id: 'signed_up', order: 1 }, { id: 'checkout', order: 2 }]);
  return [
    ['trend DAU, 30 days', `insights/trend/?events=${dau}&date_from=-30d`],
    ['trend total by person plan, top 25', `insights/trend/?events=${pageviews}&breakdown=plan&breakdown_type=person&breakdown_limit=25&date_from=-30d`],
    ['stickiness, 30 days', `insights/trend/?insight=STICKINESS&shown_as=Stickiness&events=${pageviews}&date_from=-30d`],
    ['lifecycle, 30 days', `insights/trend/?shown_as=Lifecycle&events=${pageviews}&date_from=-30d`],
    ['persons of one DAU point', `persons/trends/?events=${dau}&entity_id=%24pageview&entity_type=events&entity_math=dau&date_from=${day}&date_to=${day}`],
    ['funnel, 3 steps ordered, 30 days', `insights/funnel/?events=${steps}&date_from=-30d`],
    ['funnel, 3 steps strict, 30 days', `insights/funnel/?events=${steps}&funnel_order_type=strict&date_from=-30d`],
    ['funnel, 3 steps unordered, 30 days', `insights/funnel/?events=${steps}&funnel_order_type=unordered&date_from=-30d`],
    ['funnel by person plan, 30 days', `insights/funnel/?events=${steps}&breakdown=plan&breakdown_type=person&date_from=-30d`],
    ['persons of funnel step 3', `persons/funnel/?events=${steps}&funnel_step=3&date_from=-30d`],
    ['funnel correlation, events', `insights/funnel/correlation/?events=${steps}&date_from=-30d`],
    ['retention, 11 days, first time', 'insights/retention/?period=Day&total_intervals=11&retention_type=retention_first_time'],
    ['retention, 11 days, recurring', 'insights/retention/?period=Day&total_intervals=11'],
    ['retention, weekly', 'insights/retention/?period=Week&total_intervals=4'],
    ['persons of retention cohort 0', 'persons/retention/?period=Day&total_intervals=11&selected_interval=0'],
    ['paths from $pageview, step limit 5', 'insights/path/?path_type=%24pageview&step_limit=5&date_from=-30d'],
    ['persons of a path step', `persons/path/?path_type=%24pageview&step_limit=5&date_from=-30d&path_end_key=${encodeURIComponent('1_https://example.com/p/1')}`],
  ].map(([label, path]) => [label, `${path}&refresh=true`]);
}

/** One GET; anything but 200 throws with the reply's body, since a fast error is no result. */
async function get(baseUrl, path) {
  const response = await fetch(`${baseUrl}/api/projects/1/${path}`, { headers: { authorization: `Bearer ${PERSONAL_KEY}` } });
  const body = await response.text();
  if (response.status !== 200) throw Object.assign(new Error(`GET /api/projects/1/${path}: ${response.status}\n${body.slice(0, 4000)}`), { status: response.status });
  return body;
}

/** What came back, so a row shows the reply was a real result: series for insights, persons for persons. */
function describe(body) {
  const reply = JSON.parse(body);
  if (Array.isArray(reply.result?.events)) return `${reply.result.events.length} correlation rows`;
  if (Array.isArray(reply.result) && reply.result[0]?.person) return `${reply.result.length} persons`;
  if (Array.isArray(reply.result)) return `${reply.result.length} result rows (series, steps, cohorts or edges)`;
  const people = reply.results?.[0]?.people;
  return Array.isArray(people) ? `${people.length} persons` : 'unknown shape';
}

/** One warm-up call, then ITERATIONS calls one after another; p50 / p99 in ms (p99 is the slowest of few). */
async function timed(call) {
  let last = await call();
  const samples = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const started = performance.now();
    last = await call();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99), last };
}

/**
 * INSIGHTS_AT_ONCE loops issuing the insights back to back until stopped. Failures are counted, not thrown,
 * so the capture phase they run beside still reports; `stop` waits for the requests in flight.
 */
function insightsInBackground(baseUrl, cases) {
  let stopped = false;
  const stats = { done: 0, failed: 0, firstError: '' };
  const loop = async (offset) => {
    for (let i = offset; !stopped; i++) {
      try {
        await get(baseUrl, cases[i % cases.length][1]);
        stats.done++;
      } catch (error) {
        stats.failed++;
        stats.firstError ||= String(error.message).split('\n').slice(0, 2).join(' ').slice(0, 300);
      }
    }
  };
  const loops = Array.from({ length: INSIGHTS_AT_ONCE }, (_, n) => loop(n));
  return {
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
      return stats;
    },
  };
}

/**
 * The service builds its ClickHouse copy of the events from PostgreSQL on its first refresh; insights answer 503
 * meanwhile. The timed requests start once one answers 200, since that is the steady state of a running service.
 */
async function buildCopy(baseUrl, row) {
  const started = performance.now();
  const deadline = Date.now() + 30 * 60_000;
  for (;;) {
    try {
      await get(baseUrl, insightCases()[0][1]);
      break;
    } catch (error) {
      if (error.status !== 503 || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  row('analytics copy: first build', 'seconds', seconds, `${EVENTS.toLocaleString('en')} events, their persons and distinct ids copied from PostgreSQL into the embedded ClickHouse, until the first insight answered`);
}

async function runAnalytics(row, run = Date.now().toString(36)) {
  const database = `hogbase_bench_analytics_${run}`;
  await sql(POSTGRES, `CREATE DATABASE ${database}`);
  const url = databaseUrl(POSTGRES, database);
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  // ROLE=api as in run.js's capture phases, so capture alone is the same path there and here (the events stay
  // queued, no worker stores them); ANALYTICS_* keep their defaults unless set in the bench's environment.
  const dataDir = mkdtempSync(join(tmpdir(), 'hogbase-bench-analytics-'));
  const env = { DATA_DIR: dataDir, DATABASE_URL: url, REDIS_URL: REDIS, QUEUE_PREFIX: `hbanalytics${run}`, INIT_PROJECT_API_KEY: PROJECT_KEY, INIT_PERSONAL_API_KEY: PERSONAL_KEY, METRICS_TOKEN, LOG_LEVEL: 'warn', ROLE: 'api', PORT: String(port),
    // Funnels on this data set can run past the default 30 s: time them instead of cutting them off.
    ANALYTICS_QUERY_TIMEOUT_MS: process.env.ANALYTICS_QUERY_TIMEOUT_MS ?? '120000' };
  let service = startProcess([...NODE_FLAGS, 'dist/main.js'], env);
  const client = new Client({ connectionString: url });
  try {
    await waitForHttp(`${baseUrl}/_readyz`);
    // The schema and first project exist now; the data goes in with the service stopped.
    await service.stop();
    const seconds = await generate(url);
    // A server's autovacuum would have visited the new rows long before anyone asks for a 30-day insight
    // (this bench's PostgreSQL may run without it): without a visibility map every index-only scan reads
    // the heap too, and the first queries would pay for setting hint bits.
    const vacuumStarted = Date.now();
    await sql(url, 'VACUUM');
    const vacuumSeconds = Math.round((Date.now() - vacuumStarted) / 1000);
    row(`analytics data set: ${EVENTS.toLocaleString('en')} events`, 'COPY + ANALYZE (s)', seconds, `then VACUUM ${vacuumSeconds} s; ${PERSONS.toLocaleString('en')} persons, events over ${DAYS} days`);
    service = startProcess([...NODE_FLAGS, 'dist/main.js'], env);
    await waitForHttp(`${baseUrl}/_readyz`);
    await client.connect();
    await buildCopy(baseUrl, row);

    // An insight that fails is printed with its reply and the phase goes on, so that one failing kind still
    // leaves the others and the capture isolation measured; the phase throws at its end.
    const failed = [];
    const cases = insightCases();
    for (const [label, path] of cases) {
      let reference = '';
      if (label.startsWith('trend DAU')) {
        const raw = await timed(() => client.query(REFERENCE_SQL));
        reference = `; raw SQL per-day count of $pageview over 30 days: p50 ${raw.p50} / p99 ${raw.p99} ms (${raw.last.rowCount} rows)`;
      }
      if (label.startsWith('funnel, 3 steps ordered')) {
        const raw = await timed(() => client.query(FUNNEL_REFERENCE_SQL));
        reference = `; raw SQL count of the step events over 30 days: p50 ${raw.p50} / p99 ${raw.p99} ms (${raw.last.rows[0].count} rows)`;
      }
      const others = otherProcessesCpu([service.child.pid]);
      try {
        const ours = await timed(() => get(baseUrl, path));
        row(label, 'p50 / p99 latency (ms)', `${ours.p50} / ${ours.p99}`, `${ITERATIONS} × HTTP 200 after 1 warm-up, ${describe(ours.last)}, other processes ${others.percent()} % CPU${reference}`);
      } catch (error) {
        if (!error.status) throw error;
        failed.push(label);
        process.stderr.write(`${error.message}\n`);
        row(label, 'p50 / p99 latency (ms)', `HTTP ${error.status}`, `FAILED, reply above${reference}`);
      }
    }

    // Capture at a fixed rate, open loop, as run.js measures it; a warm-up first so that the phase alone
    // is not the cold one of the two.
    const body = JSON.stringify({ api_key: PROJECT_KEY, event: 'bench', distinct_id: 'bench-user', properties: { $current_url: 'https://example.com' } });
    const capture = (duration) => pacedLoad({ url: `${baseUrl}/capture/`, body, rate: CAPTURE_RATE, duration, connections: 16 });
    await capture(WARMUP_SECONDS);
    // Beside each capture phase: the service's own CPU (busy, or starved?) and other processes' (was the run
    // disturbed?), both over the capture alone.
    const measured = async () => {
      const [others, cpu, started] = [otherProcessesCpu([service.child.pid]), cpuSecondsOf([service.child.pid]), Date.now()];
      const result = await capture(SECONDS);
      const percent = (seconds) => Math.round((100 * seconds) / ((Date.now() - started) / 1000));
      return { ...result, cpu: percent(cpuSecondsOf([service.child.pid]) - cpu), others: others.percent() };
    };
    const alone = await measured();
    const background = insightsInBackground(baseUrl, cases);
    const loaded = await measured();
    const insights = await background.stop();
    // Alone once more: a tail spike of the first phase alone would otherwise pass for isolation.
    const after = await measured();
    const rate = CAPTURE_RATE.toLocaleString('en');
    const done = (r) => `${r.requestsPerSec} req/s done, ${r.non2xx + r.errors} errors, service ${r.cpu} % CPU, other processes ${r.others} % CPU`;
    row(`/capture/ at ${rate} req/s, alone`, 'p50 / p99 latency (ms)', `${alone.p50} / ${alone.p99}`, done(alone));
    row(`/capture/ at ${rate} req/s, with insights`, 'p50 / p99 latency (ms)', `${loaded.p50} / ${loaded.p99}`, `${done(loaded)}; insights ${INSIGHTS_AT_ONCE} at a time throughout: ${insights.done} answered 200 by the end, ${insights.failed} failed${insights.firstError ? ` (first: ${insights.firstError})` : ''}`);
    row(`/capture/ at ${rate} req/s, alone again`, 'p50 / p99 latency (ms)', `${after.p50} / ${after.p99}`, done(after));
    const ratio = (base) => (base.p99 > 0 ? Math.round((100 * loaded.p99) / base.p99) / 100 : '?');
    const met = ratio(alone) <= 2 ? 'met' : 'not met';
    row('/capture/ p99 with / without insights', 'ratio', ratio(alone), `target ≤ 2: ${met}; against the phase alone after: ${ratio(after)}`);
    row('analytics memory', 'peak RSS service (MB)', service.peakRssMb(), 'ROLE=api, one process, sampled every 500 ms');
    if (failed.length > 0) throw new Error(`analytics: ${failed.join(', ')} answered other than 200 (replies above)`);
  } finally {
    await client.end().catch(() => undefined);
    await service.stop();
    await sql(POSTGRES, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await removeRedisKeys(REDIS, env.QUEUE_PREFIX);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

module.exports = { runAnalytics };
