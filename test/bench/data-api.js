'use strict';
// The read side of the management API on a large project: BENCH_DATA_EVENTS events (default 10 million)
// and BENCH_DATA_PERSONS persons (default 1 million) written by COPY into a scratch database, then the
// events list (newest page, filtered by event, by a property, next page) and the person search measured
// with autocannon. Run by `npm run bench` after the ingestion phases, or alone: `node test/bench/data-api.js`.
// The analytics phase (analytics-bench.js) generates its data set with the same `generate`.
const { randomUUID } = require('node:crypto');
const { Client } = require('pg');
const { from: copyFrom } = require('pg-copy-streams');
const { pipeline } = require('node:stream/promises');
const { Readable } = require('node:stream');
const { POSTGRES, REDIS, nodeFlags, freePort, waitForHttp, startProcess, load, sql, databaseUrl, removeRedisKeys } = require('./bench-support');

const EVENTS = Number(process.env.BENCH_DATA_EVENTS ?? 10_000_000);
const PERSONS = Number(process.env.BENCH_DATA_PERSONS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PROJECT_KEY = 'phc_BenchmarkDataProjectKey000000000000000000';
const PERSONAL_KEY = 'phx_BenchmarkDataPersonalKey00000000000000000';
const EVENT_NAMES = ['$pageview', '$pageview', '$pageview', '$pageview', '$autocapture', '$autocapture', 'signed_up', 'plan_changed', 'checkout', 'search'];
const BROWSERS = ['Chrome', 'Firefox', 'Safari', 'Edge', 'Opera'];
const DAYS = 30;

/** COPY text escaping: backslash, tab and newline are the only special characters in these rows. */
const copyText = (value) => value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n');

async function copyRows(url, statement, total, makeLine) {
  const client = new Client({ connectionString: url });
  await client.connect();
  const stream = client.query(copyFrom(statement));
  let written = 0;
  const source = Readable.from(
    (function* () {
      while (written < total) {
        const lines = [];
        for (let i = 0; i < 5000 && written < total; i++, written++) lines.push(makeLine(written));
        yield lines.join('');
      }
    })(),
  );
  await pipeline(source, stream);
  await client.end();
}

/**
 * Persons `user-<i>` with an email, a name and a plan; events spread over the last 30 days, 40 % page
 * views, each with a browser, a URL and (one in ten) a `coupon` property, each by one of the persons.
 */
async function generate(url) {
  const started = Date.now();
  await copyRows(url, 'COPY person (id, project_id, uuid, properties, is_identified, created_at) FROM STDIN', PERSONS, (i) => {
    const properties = JSON.stringify({ email: `user${i}@example.com`, name: `User ${i}`, plan: i % 3 === 0 ? 'pro' : 'free' });
    return `${i + 1}\t1\t${randomUUID()}\t${copyText(properties)}\t${i % 2 === 0}\t${new Date(Date.now() - (PERSONS - i) * 1000).toISOString()}\n`;
  });
  await sql(url, `SELECT setval('person_id_seq', $1)`, [PERSONS]);
  await copyRows(url, 'COPY person_distinct_id (project_id, distinct_id, person_id) FROM STDIN', PERSONS, (i) => `1\tuser-${i}\t${i + 1}\n`);
  const now = Date.now();
  const span = DAYS * 86_400_000;
  await copyRows(url, 'COPY event (project_id, uuid, event, distinct_id, person_id, properties, elements_chain, timestamp) FROM STDIN', EVENTS, (i) => {
    const person = Math.floor(Math.random() * PERSONS);
    const properties = { $browser: BROWSERS[i % 5], $current_url: `https://example.com/p/${i % 500}` };
    if (i % 10 === 0) properties.coupon = `C${(i / 10) % 100}`;
    const event = EVENT_NAMES[i % EVENT_NAMES.length];
    // A number to sum: what an order was worth.
    if (event === 'checkout') properties.price = (i % 97) + 0.5;
    const timestamp = new Date(now - Math.floor((i / EVENTS) * span) - Math.floor(Math.random() * 1000)).toISOString();
    return `1\t${randomUUID()}\t${event}\tuser-${person}\t${person + 1}\t${copyText(JSON.stringify(properties))}\t\t${timestamp}\n`;
  });
  await sql(url, 'ANALYZE');
  return Math.round((Date.now() - started) / 1000);
}

async function measure(baseUrl, path) {
  const url = `${baseUrl}/api/projects/1/${path}`;
  const check = await fetch(url, { headers: { authorization: `Bearer ${PERSONAL_KEY}` } });
  if (check.status !== 200) throw new Error(`${path}: ${check.status} ${(await check.text()).slice(0, 200)}`);
  const body = await check.json();
  const options = { url, method: 'GET', headers: { authorization: `Bearer ${PERSONAL_KEY}` }, connections: 1 };
  await load({ ...options, duration: 2 });
  const result = await load({ ...options, duration: SECONDS });
  return { ...result, rows: body.results.length, next: body.next };
}

async function runDataApi(row, run = Date.now().toString(36)) {
  const database = `hogbase_bench_data_${run}`;
  await sql(POSTGRES, `CREATE DATABASE ${database}`);
  const url = databaseUrl(POSTGRES, database);
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = { DATABASE_URL: url, REDIS_URL: REDIS, QUEUE_PREFIX: `hbdata${run}`, INIT_PROJECT_API_KEY: PROJECT_KEY, INIT_PERSONAL_API_KEY: PERSONAL_KEY, LOG_LEVEL: 'warn' };
  let api = startProcess([...nodeFlags(), 'dist/main.js'], { ...env, ROLE: 'api', PORT: String(port) });
  try {
    await waitForHttp(`${baseUrl}/_readyz`);
    // The schema and first project exist now; the data goes in with the service stopped.
    await api.stop();
    const seconds = await generate(url);
    row(`data set: ${EVENTS.toLocaleString('en')} events`, 'COPY + ANALYZE (s)', seconds, `${PERSONS.toLocaleString('en')} persons with one distinct id each, events over ${DAYS} days`);
    api = startProcess([...nodeFlags(), 'dist/main.js'], { ...env, ROLE: 'api', PORT: String(port) });
    await waitForHttp(`${baseUrl}/_readyz`);
    const cases = [
      ['events list, newest page', 'events/?limit=100'],
      ['events list, event=signed_up', 'events/?event=signed_up&limit=100'],
      ['events list, property $browser=Safari', `events/?limit=100&properties=${encodeURIComponent('[{"key":"$browser","value":"Safari"}]')}`],
      ['events list, property coupon=C42', `events/?limit=100&properties=${encodeURIComponent('[{"key":"coupon","value":"C42"}]')}`],
    ];
    for (const [label, path] of cases) {
      const result = await measure(baseUrl, path);
      row(label, 'p50 / p99 latency (ms)', `${result.p50} / ${result.p99}`, `${result.requestsPerSec} req/s at 1 connection, ${result.rows} rows, ${result.non2xx} non-2xx`);
      if (label.endsWith('newest page')) {
        const next = new URL(result.next);
        const paged = await measure(baseUrl, `events/${next.search}`);
        row('events list, second page (next link)', 'p50 / p99 latency (ms)', `${paged.p50} / ${paged.p99}`, `${paged.requestsPerSec} req/s, ${paged.rows} rows`);
      }
    }
    const target = Math.floor(PERSONS / 2);
    for (const [label, term] of [['persons search, one email', `user${target}@`], ['persons search, distinct id', `user-${target + 1}`], ['persons search, common term', 'example']]) {
      const result = await measure(baseUrl, `persons/?search=${encodeURIComponent(term)}`);
      row(label, 'p50 / p99 latency (ms)', `${result.p50} / ${result.p99}`, `${result.requestsPerSec} req/s at 1 connection, ${result.rows} rows`);
    }
  } finally {
    await api.stop();
    await sql(POSTGRES, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await removeRedisKeys(REDIS, env.QUEUE_PREFIX);
  }
}

module.exports = { runDataApi, generate, EVENTS, PERSONS, DAYS };

if (require.main === module) {
  const row = (path, metric, value, reference) =>
    process.stdout.write(`  ${path.padEnd(40)} ${metric.padEnd(26)} ${String(value).padStart(12)}   ${reference ?? ''}\n`);
  runDataApi(row).catch((error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(1);
  });
}
