'use strict';
// Insights on a large project: the data set of data-api.js (BENCH_DATA_EVENTS events, default 10 million,
// over BENCH_DATA_PERSONS persons, default 1 million, 30 days) in a scratch database, copied by the service
// into its embedded ClickHouse (a scratch DATA_DIR). Measured: the copy's first build and its size on disk; a
// restart until the first insight answers; each question of analytics-cases.js one request at a time with
// `refresh=true` (so every request computes, none is a cache hit), beside the same question as raw ClickHouse SQL
// on the same files; `/capture/` at a fixed 1,000 req/s alone and while insights run (insights must never slow
// ingestion down); the copy's lag at 5,000 events/s; the service's memory; the web console's bundle and a
// six-tile dashboard in Chromium (console-bench.js). Run by `npm run bench` after the
// data-api phase (BENCH_SKIP_ANALYTICS=1 skips it), alone with `node test/bench/run.js analytics` after a build;
// BENCH_ANALYTICS_KEEP=1 keeps the data set for the next run.
const { execFileSync } = require('node:child_process');
const { randomUUID } = require('node:crypto');
const { mkdirSync, mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { performance } = require('node:perf_hooks');
const { nodeFlags, POSTGRES, REDIS, freePort, waitForHttp, startProcess, pacedLoad, percentile, sql, databaseUrl, otherProcessesCpu, cpuSecondsOf, removeRedisKeys, rssOf } = require('./bench-support');
const { insightCases } = require('./analytics-cases');
const { generate, EVENTS, PERSONS, DAYS } = require('./data-api');
const { runConsoleDashboard } = require('./console-bench');
const { IDLE_MEMORY_RETURN_MS } = require('../../dist/modules/analytics/engine/idle-memory-return');

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
/** Insights running at once beside the paced capture: enough to keep both cores busy. */
const INSIGHTS_AT_ONCE = 2;
/** Alternations of capture alone and capture beside other work (captureBeside). */
const CAPTURE_ROUNDS = Number(process.env.BENCH_CAPTURE_ROUNDS ?? 3);
/** The copy-lag phase: events per second, for how long, and one probe batch in how many. */
const LAG_RATE = 5000;
const LAG_SECONDS = Number(process.env.BENCH_LAG_SECONDS ?? 30);
const LAG_PROBE_EVERY = 10;
/** The references run under the service's per-query limits (its defaults unless set in the bench's environment). */
const THREADS = process.env.ANALYTICS_QUERY_MAX_THREADS ?? '2';
const MEMORY_MB = process.env.ANALYTICS_QUERY_MAX_MEMORY_MB ?? '1024';

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
 * INSIGHTS_AT_ONCE loops issuing the insights back to back until stopped, each from its index in `next` (one per
 * loop; spread over the cases when absent, so the phase meets funnels and paths as well as trends). Failures are
 * counted, not thrown, so the capture phase they run beside still reports; `stop` waits for the requests in flight
 * and gives where each loop stopped, for the next phase to go on from there.
 */
function insightsInBackground(baseUrl, cases, next = Array.from({ length: INSIGHTS_AT_ONCE }, (_, n) => Math.floor((n * cases.length) / INSIGHTS_AT_ONCE))) {
  let stopped = false;
  const stats = { done: 0, failed: 0, firstError: '', answered: new Set(), next: [...next] };
  const loop = async (n) => {
    for (; !stopped; stats.next[n]++) {
      const [label, path] = cases[stats.next[n] % cases.length];
      try {
        await get(baseUrl, path);
        stats.done++;
        stats.answered.add(label);
      } catch (error) {
        stats.failed++;
        stats.firstError ||= String(error.message).split('\n').slice(0, 2).join(' ').slice(0, 300);
      }
    }
  };
  const loops = next.map((_, n) => loop(n));
  return {
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
      return stats;
    },
  };
}

/** Polls the first case until it answers 200 (insights answer 503 until the copy's first build); seconds since `since`. */
async function firstAnswer(baseUrl, since) {
  const deadline = Date.now() + 30 * 60_000;
  for (;;) {
    try {
      await get(baseUrl, insightCases()[0].path);
      return Math.round((performance.now() - since) / 100) / 10;
    } catch (error) {
      if (![503, undefined].includes(error.status) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * The data set, in a scratch database and data directory; with BENCH_ANALYTICS_KEEP=1 in ones that outlive the run
 * (`hogbase_bench_analytics_kept`, `$TMPDIR/hogbase-bench-analytics-kept`), generated only when missing, so that
 * work on one insight does not wait for ten million rows each time. Drop both by hand when done.
 */
async function dataSet(run) {
  if (process.env.BENCH_ANALYTICS_KEEP !== '1') {
    return { database: `hogbase_bench_analytics_${run}`, dataDir: mkdtempSync(join(tmpdir(), 'hogbase-bench-analytics-')), kept: false, exists: false };
  }
  const database = 'hogbase_bench_analytics_kept';
  const dataDir = join(tmpdir(), 'hogbase-bench-analytics-kept');
  const found = await sql(POSTGRES, 'SELECT 1 FROM pg_database WHERE datname = $1', [database]);
  const exists = found.length > 0 && (await sql(databaseUrl(POSTGRES, database), 'SELECT count(*)::int AS n FROM event WHERE project_id = 1'))[0].n >= EVENTS;
  if (!exists) {
    await sql(POSTGRES, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    rmSync(dataDir, { recursive: true, force: true });
  }
  mkdirSync(dataDir, { recursive: true });
  return { database, dataDir, kept: true, exists };
}

/** Each case's raw SQL, timed in a process of its own on the data directory while the service is stopped. */
function references(dataDir, cases) {
  const input = JSON.stringify(cases.map(({ label, reference }) => ({ label, sql: reference })));
  const output = execFileSync(process.execPath, [join(__dirname, 'analytics-reference.js'), join(dataDir, 'clickhouse'), 'hogbase', String(ITERATIONS), THREADS, MEMORY_MB], { input, maxBuffer: 1 << 26 });
  return new Map(output.toString().split('\n').filter(Boolean).map((line) => JSON.parse(line)).map((r) => [r.label, r]));
}

/** Each case timed on the running service (`ours`, or the `error` it answered), with other processes' CPU meanwhile. */
async function timeInsights(baseUrl, service, cases) {
  const timings = new Map();
  for (const { label, path } of cases) {
    const others = otherProcessesCpu([service.child.pid]);
    try {
      const ours = await timed(() => get(baseUrl, path));
      timings.set(label, { ours, others: others.percent() });
    } catch (error) {
      if (!error.status) throw error;
      process.stderr.write(`${error.message}\n`);
      timings.set(label, { error, others: others.percent() });
    }
  }
  return timings;
}

/** A case's reference: the mean of its raw SQL's timings before and after the service's, and the text beside its row. */
function referenceOf(before, after) {
  if (before.error || after.error) return { p50: 0, text: `raw SQL failed: ${before.error ?? after.error}` };
  const mean = (a, b) => Math.round(((a + b) / 2) * 100) / 100;
  const p50 = mean(before.p50, after.p50);
  return { p50, text: `raw SQL p50 ${p50} / p99 ${mean(before.p99, after.p99)} ms (p50 ${before.p50} before, ${after.p50} after; ${before.rows} rows)` };
}

/** One row per case, ours beside its reference; the labels of the cases that failed. */
function insightRows(row, cases, timings, before, after) {
  const failed = [];
  for (const { label } of cases) {
    const { ours, error, others } = timings.get(label);
    const reference = referenceOf(before.get(label), after.get(label));
    if (error) {
      failed.push(label);
      row(label, 'p50 / p99 latency (ms)', `HTTP ${error.status}`, `FAILED, reply above; ${reference.text}`);
      continue;
    }
    const ratio = reference.p50 > 0 ? Math.round((10 * ours.p50) / reference.p50) / 10 : '?';
    row(label, 'p50 / p99 latency (ms)', `${ours.p50} / ${ours.p99}`, `${ratio}× ${reference.text}; ${describe(ours.last)}; other processes ${others} % CPU`);
  }
  return failed;
}

async function runAnalytics(row, run = Date.now().toString(36)) {
  const { database, dataDir, kept, exists } = await dataSet(run);
  if (!exists) await sql(POSTGRES, `CREATE DATABASE ${database}`);
  const url = databaseUrl(POSTGRES, database);
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  // ROLE=api as in run.js's capture phases, so capture alone is the same path there and here (the events stay
  // queued, no worker stores them, except in the copy-lag phase, which starts one); ANALYTICS_* keep their defaults
  // unless set in the bench's environment.
  const env = { DATA_DIR: dataDir, DATABASE_URL: url, REDIS_URL: REDIS, QUEUE_PREFIX: `hbanalytics${run}`, INIT_PROJECT_API_KEY: PROJECT_KEY, INIT_PERSONAL_API_KEY: PERSONAL_KEY, METRICS_TOKEN, LOG_LEVEL: 'warn', ROLE: 'api', PORT: String(port),
    // Time slow insights instead of cutting them off.
    ANALYTICS_QUERY_TIMEOUT_MS: process.env.ANALYTICS_QUERY_TIMEOUT_MS ?? '120000' };
  let service = startProcess([...NODE_FLAGS, 'dist/main.js'], env);
  try {
    await waitForHttp(`${baseUrl}/_readyz`);
    if (!exists) {
      // The schema and first project exist now; the data goes in with the service stopped.
      await service.stop();
      const seconds = await generate(url);
      // A server's autovacuum would have visited the new rows long before anyone asks for an insight.
      const vacuumStarted = Date.now();
      await sql(url, 'VACUUM');
      const vacuumSeconds = Math.round((Date.now() - vacuumStarted) / 1000);
      row(`analytics data set: ${EVENTS.toLocaleString('en')} events`, 'COPY + ANALYZE (s)', seconds, `then VACUUM ${vacuumSeconds} s; ${PERSONS.toLocaleString('en')} persons, events over ${DAYS} days`);
      const started = performance.now();
      service = startProcess([...NODE_FLAGS, 'dist/main.js'], env);
      await waitForHttp(`${baseUrl}/_readyz`);
      row('analytics copy: first build', 'seconds', await firstAnswer(baseUrl, started), `${EVENTS.toLocaleString('en')} events, their persons and distinct ids copied from PostgreSQL into the embedded ClickHouse, from the service's start until the first insight answered`);
    } else {
      await firstAnswer(baseUrl, performance.now());
    }
    await service.stop();
    // BENCH_ANALYTICS_CASES (a regular expression on the labels) times only those cases and skips the capture and
    // copy-lag phases: for work on one kind of insight; the reference table comes from a full run.
    const only = process.env.BENCH_ANALYTICS_CASES ? new RegExp(process.env.BENCH_ANALYTICS_CASES, 'i') : null;
    const cases = insightCases().filter(({ label }) => !only || only.test(label));
    const rawBefore = references(dataDir, cases);
    row('analytics copy: disk', 'MB', Math.round(Number(execFileSync('du', ['-sb', join(dataDir, 'clickhouse')]).toString().split('\t')[0]) / 1048576), `the embedded ClickHouse's data directory at ${EVENTS.toLocaleString('en')} events (PostgreSQL holds the same in ${(await sql(url, 'SELECT pg_database_size(current_database()) / 1048576 AS mb'))[0].mb} MB)`);

    const restarted = performance.now();
    service = startProcess([...NODE_FLAGS, 'dist/main.js'], env);
    await waitForHttp(`${baseUrl}/_readyz`, 120_000);
    row('restart to first insight', 'seconds', await firstAnswer(baseUrl, restarted), `from spawning the service on a copy already built until "${cases[0].label}" answered 200; target ≤ 3`);

    // An insight that fails is printed with its reply and the phase goes on, so that one failing kind still
    // leaves the others and the capture isolation measured; the phase throws at its end.
    const timings = await timeInsights(baseUrl, service, cases);
    const rssRightAfter = Math.round(rssOf(service.child.pid) / 1048576);
    // At rest: the embedded engine hands the memory its reads freed back once it has run nothing for a while.
    await new Promise((resolve) => setTimeout(resolve, IDLE_MEMORY_RETURN_MS + 1000));
    row('analytics memory at rest after the insights', 'RSS service (MB)', Math.round(rssOf(service.child.pid) / 1048576), `${rssRightAfter} MB right after the last, peak so far ${service.peakRssMb()} MB (a read's working memory); ROLE=api, one process; target ≤ 500`);
    // The references again: a shared host's speed drifts over minutes, so each case is held against the mean of its
    // reference timed before and after the service's (its own timings fall between the two).
    const peakBefore = service.peakRssMb();
    await service.stop();
    const rawAfter = references(dataDir, cases);
    service = startProcess([...NODE_FLAGS, 'dist/main.js'], env);
    await waitForHttp(`${baseUrl}/_readyz`, 120_000);
    await firstAnswer(baseUrl, performance.now());
    const failed = insightRows(row, cases, timings, rawBefore, rawAfter);

    // The console's dashboard on the same data, also when BENCH_ANALYTICS_CASES names `console`.
    if (!only || only.test('console')) {
      await runConsoleDashboard(row, { baseUrl, personalKey: PERSONAL_KEY, env, captureBeside: (what, background) => captureBeside(row, baseUrl, service, what, background) });
    }
    if (!only) await captureBesideInsights(row, baseUrl, service, cases);
    if (!only) await copyLag(row, baseUrl, env);
    row('analytics memory', 'peak RSS service (MB)', Math.max(peakBefore, service.peakRssMb()), 'ROLE=api, one process, sampled every 500 ms over the whole phase, the working memory of reads included (bounded per read by ANALYTICS_QUERY_MAX_MEMORY_MB)');
    if (failed.length > 0) throw new Error(`analytics: ${failed.join(', ')} answered other than 200 (replies above)`);
  } finally {
    await service.stop();
    await removeRedisKeys(REDIS, env.QUEUE_PREFIX);
    if (!kept) {
      await sql(POSTGRES, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
}

/**
 * Capture at a fixed rate, open loop, as run.js measures it, in CAPTURE_ROUNDS alternations after a warm-up: alone,
 * then while `what` runs (`background()` starts it and returns `stop`, which resolves to a description of what it
 * did), then alone again, and so on, ending alone. The p99 of each condition is taken over all its phases pooled. On
 * a shared two-core host the p99 of one 10 s phase is the 100th slowest of 10,000 requests: a single stall of a
 * tenth of a second anywhere on the host decides it, alone as well as beside insights, so one phase per condition
 * compared the host's luck in two windows as often as it compared the conditions. Alternating puts the host's
 * drift into both conditions alike; every phase's p99 is printed as well.
 */
async function captureBeside(row, baseUrl, service, what, background) {
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
  const alone = [await measured()];
  const beside = [];
  const descriptions = [];
  for (let round = 0; round < CAPTURE_ROUNDS; round++) {
    const running = await background();
    beside.push(await measured());
    descriptions.push(await running.stop());
    alone.push(await measured());
  }
  const rate = CAPTURE_RATE.toLocaleString('en');
  const pooled = (phases) => {
    const all = Float64Array.from(phases.flatMap((phase) => [...phase.latencies])).sort();
    return { p50: percentile(all, 0.5), p99: percentile(all, 0.99), requests: all.length };
  };
  const done = (phases) => {
    const range = (values) => `${Math.min(...values)}–${Math.max(...values)}`;
    const failed = phases.reduce((sum, r) => sum + r.non2xx + r.errors, 0);
    return `p99 per phase ${phases.map((r) => r.p99).join(', ')} ms; ${range(phases.map((r) => r.requestsPerSec))} req/s done, ${failed} errors, service ${range(phases.map((r) => r.cpu))} % CPU, other processes ${range(phases.map((r) => r.others))} % CPU`;
  };
  const [without, withIt] = [pooled(alone), pooled(beside)];
  row(`/capture/ at ${rate} req/s, alone`, 'p50 / p99 latency (ms)', `${without.p50} / ${without.p99}`, `${alone.length} phases of ${SECONDS} s pooled (${without.requests} requests); ${done(alone)}`);
  row(`/capture/ at ${rate} req/s, with ${what}`, 'p50 / p99 latency (ms)', `${withIt.p50} / ${withIt.p99}`, `${beside.length} phases of ${SECONDS} s pooled (${withIt.requests} requests), each between two alone; ${done(beside)}; ${descriptions.join('; ')}`);
  const ratio = without.p99 > 0 ? Math.round((100 * withIt.p99) / without.p99) / 100 : '?';
  const perRound = beside.map((phase, i) => Math.round((100 * phase.p99) / alone[i].p99) / 100);
  row(`/capture/ p99 with / without ${what}`, 'ratio', ratio, `target ≤ 2: ${ratio <= 2 ? 'met' : 'not met'}; each phase against the alone phase before it: ${perRound.join(', ')}`);
}

function captureBesideInsights(row, baseUrl, service, cases) {
  let next;
  return captureBeside(row, baseUrl, service, 'insights', async () => {
    const background = insightsInBackground(baseUrl, cases.map((c) => [c.label, c.path]), next);
    return {
      stop: async () => {
        const insights = await background.stop();
        next = insights.next;
        return `insights ${INSIGHTS_AT_ONCE} at a time throughout: ${insights.done} answered 200 (${[...insights.answered].join(', ')}), ${insights.failed} failed${insights.firstError ? ` (first: ${insights.firstError})` : ''}`;
      },
    };
  });
}

/**
 * Copy lag: events arrive through /batch/ at LAG_RATE events/s (a worker process stores them, as in production);
 * one batch in LAG_PROBE_EVERY carries a probe event numbered by its batch, and an insight broken down by that
 * number is asked again and again: a probe's lag runs from its batch's send to the first answer that counts it.
 */
async function copyLag(row, baseUrl, env) {
  const worker = startProcess([...NODE_FLAGS, 'dist/main.js'], { ...env, ROLE: 'worker', PORT: String(await freePort()) });
  const sentAt = new Map();
  const seenAt = new Map();
  // This run's probes only: a kept data set holds the probes of runs before.
  const run = randomUUID();
  const filler = Array.from({ length: 99 }, (_, i) => ({ event: 'lag_filler', distinct_id: `lag-${i}`, properties: { $current_url: `https://example.com/p/${i}` } }));
  const body = (n) => {
    if (n % LAG_PROBE_EVERY !== 0) return JSON.stringify({ api_key: PROJECT_KEY, batch: [...filler, filler[0]] });
    sentAt.set(String(n), performance.now());
    return JSON.stringify({ api_key: PROJECT_KEY, batch: [...filler, { event: 'lag_probe', distinct_id: 'lag-probe', properties: { probe: String(n), lag_run: run } }] });
  };
  const thisRun = encodeURIComponent(JSON.stringify([{ key: 'lag_run', value: run, type: 'event' }]));
  const probes = `insights/trend/?events=${encodeURIComponent(JSON.stringify([{ id: 'lag_probe' }]))}&properties=${thisRun}&breakdown=probe&breakdown_type=event&breakdown_limit=1000&date_from=-1d&refresh=true`;
  let sending = true;
  const poll = (async () => {
    while (sending || seenAt.size < sentAt.size) {
      const reply = JSON.parse(await get(baseUrl, probes));
      const now = performance.now();
      for (const series of reply.result) if (!seenAt.has(String(series.breakdown_value))) seenAt.set(String(series.breakdown_value), now);
      if (!sending && performance.now() - stoppedAt > 120_000) break;
    }
  })();
  let stoppedAt = 0;
  const load = await pacedLoad({ url: `${baseUrl}/batch/`, body, rate: LAG_RATE / 100, duration: LAG_SECONDS, connections: 4 });
  sending = false;
  stoppedAt = performance.now();
  await poll;
  await worker.stop();
  const lags = [...sentAt].filter(([n]) => seenAt.has(n)).map(([n, at]) => seenAt.get(n) - at).sort((a, b) => a - b);
  const seconds = (ms) => Math.round(ms / 100) / 10;
  row(`copy lag at ${LAG_RATE.toLocaleString('en')} events/s`, 'p50 / p99 (s)', `${seconds(percentile(lags, 0.5))} / ${seconds(percentile(lags, 0.99))}`,
    `from a /batch/ send until an insight counted its probe; ${lags.length} of ${sentAt.size} probes seen within 2 minutes of the end, ${load.requestsPerSec * 100} events/s sent, ${load.non2xx + load.errors} failed requests; target p99 ≤ 5`);
}

module.exports = { runAnalytics };
