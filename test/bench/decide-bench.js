'use strict';
// Flag evaluation under load: `/decide/?v=3` and `/flags/?v=2` on a project with 50 flags and
// BENCH_DECIDE_PERSONS persons (default 100,000) written by COPY into a scratch database, beside a bare
// Fastify route that parses the same bodies and sends a reply of the same size. Run by `npm run bench`
// after the other phases (BENCH_SKIP_DECIDE=1 skips it), alone with `node test/bench/run.js decide`, or
// `node test/bench/decide-bench.js` (after `npx nest build`). The service is measured as one process and
// as an API cluster (BENCH_DECIDE_API_PROCESSES, default `1,auto`; `auto` is one HTTP process per core).
const { randomUUID } = require('node:crypto');
const { execFileSync } = require('node:child_process');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { Client } = require('pg');
const { from: copyFrom } = require('pg-copy-streams');
const { pipeline } = require('node:stream/promises');
const { Readable } = require('node:stream');
const { nodeFlags, POSTGRES, REDIS, freePort, waitForHttp, startProcess, load, pacedLoad, sql, databaseUrl, otherProcessesCpu, cpuSecondsOf, removeRedisKeys } = require('./bench-support');

const PERSONS = Number(process.env.BENCH_DECIDE_PERSONS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
/** Connections of the max phases; more only adds queueing (latency = connections / throughput). */
const CONNECTIONS = Number(process.env.BENCH_DECIDE_CONNECTIONS ?? 16);
/**
 * Fixed rates, open loop (`pacedLoad`). `2000,5000` adds the target's rate, which costs time where the API
 * cannot keep up: a phase ends once its backlog is answered.
 */
const PACED_RATES = (process.env.BENCH_DECIDE_RATES ?? '2000').split(',').map(Number).filter((rate) => rate > 0);
/**
 * The service is measured once per API_PROCESSES value listed, by default as one process and as an API
 * cluster with one HTTP process per core (`auto`), so every run shows what the cluster mode buys here.
 */
const API_PROCESSES = (process.env.BENCH_DECIDE_API_PROCESSES ?? '1,auto').split(',').map((value) => value.trim()).filter(Boolean);
const PROJECT_KEY = 'phc_BenchmarkDecideProjectKey0000000000000000';
const PERSONAL_KEY = 'phx_BenchmarkDecidePersonalKey000000000000000';
const ORGANIZATIONS = 1000;
const INSTANCES = 200;
const BODIES = 100_000;
/** `/decide/?v=3`: values and payloads with the config block; `/flags/?v=2`: details (reasons, metadata). */
const ROUTES = ['/decide/?v=3', '/flags/?v=2'];

const PLANS = ['free', 'free', 'free', 'pro', 'enterprise'];
const COUNTRIES = ['US', 'DE', 'FR', 'GB', 'BR', 'IN', 'JP', 'CA'];
const DOMAINS = ['example.com', 'acme.io', 'gmail.com', 'corp.net'];
const BROWSERS = ['Chrome', 'Firefox', 'Safari', 'Edge'];

/** A small seeded generator, so every run evaluates the same data set and the same request mix. */
function prng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** COPY text escaping: backslash, tab and newline are the only special characters in these rows. */
const copyText = (value) => value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n');

function personProperties(i) {
  const properties = {
    email: `user${i}@${DOMAINS[i % 4]}`,
    name: `User ${i}`,
    plan: PLANS[i % 5],
    country: COUNTRIES[i % 8],
    age: 18 + (i % 60),
    seats: i % 200,
    app_version: `${1 + (i % 3)}.${i % 10}.${i % 7}`,
    signed_up_at: new Date(Date.UTC(2024, 0, 1) + (i % 730) * 86_400_000).toISOString(),
    $browser: BROWSERS[i % 4],
  };
  if (i % 10 === 0) properties.beta = true;
  if (i % 7 === 0) properties.company = `Company ${i % 500}`;
  return properties;
}

const rollout = (percentage, properties = []) => ({ properties, rollout_percentage: percentage });
const person = (key, operator, value) => ({ key, operator, value, type: 'person' });
const variants = (...keys) => ({ variants: keys.map(([key, rollout_percentage]) => ({ key, rollout_percentage })) });

/**
 * 50 flags: 14 plain rollouts, 21 person-property flags over 17 operators (one with two condition
 * sets), 10 multivariate flags with payloads (5 of them behind a property), 3 group flags, a flag
 * that depends on another and a boolean flag with a JSON payload.
 */
function flagDefinitions() {
  const flags = [];
  for (const percentage of [0, 5, 10, 20, 25, 30, 40, 50, 60, 70, 75, 80, 90, 100]) {
    flags.push({ key: `rollout-${percentage}`, filters: { groups: [rollout(percentage)] } });
  }
  const conditions = [
    ['pro-plan', [person('plan', 'exact', 'pro')], 100],
    ['paid-plans', [person('plan', 'exact', ['pro', 'enterprise'])], 100],
    ['not-free', [person('plan', 'is_not', 'free')], 50],
    ['north-america', [person('country', 'exact', ['US', 'CA'])], 50],
    ['acme-staff', [person('email', 'icontains', '@acme.io')], 100],
    ['no-gmail', [person('email', 'not_icontains', 'gmail')], 100],
    ['email-regex', [person('email', 'regex', '^user[0-9]*7@')], 100],
    ['dot-net', [person('email', 'ends_with', '.net')], 100],
    ['name-prefix', [person('name', 'starts_with', 'User 1')], 100],
    ['over-40', [person('age', 'gt', '40')], 100],
    ['young-sample', [person('age', 'lte', '25')], 30],
    ['big-accounts', [person('seats', 'gte', '100')], 100],
    ['beta-testers', [person('beta', 'exact', true)], 100],
    ['beta-set', [person('beta', 'is_set', 'is_set')], 100],
    ['no-company', [person('company', 'is_not_set', 'is_not_set')], 100],
    ['browsers', [person('$browser', 'icontains_multi', ['chrome', 'edge'])], 100],
    ['recent-signups', [person('signed_up_at', 'is_date_after', '-365d')], 100],
    ['early-signups', [person('signed_up_at', 'is_date_before', '2024-06-01')], 100],
    ['app-v2', [person('app_version', 'semver_gte', '2.0.0')], 100],
    ['app-v1-2', [person('app_version', 'semver_tilde', '1.2.0')], 100],
  ];
  for (const [key, properties, percentage] of conditions) flags.push({ key, filters: { groups: [rollout(percentage, properties)] } });
  flags.push({
    key: 'two-sets',
    filters: { groups: [rollout(100, [person('plan', 'exact', 'enterprise')]), rollout(50, [person('country', 'exact', 'DE'), person('age', 'gt', '30')])] },
  });
  for (let n = 0; n < 10; n++) {
    const behind = n % 2 === 1 ? [person('plan', 'exact', ['pro', 'enterprise'])] : [];
    const condition = { ...rollout(n === 0 ? 100 : 50 + n * 5, behind), ...(n === 9 ? { variant: 'treatment' } : {}) };
    flags.push({
      key: `experiment-${n}`,
      filters: {
        groups: [condition],
        multivariate: variants(['control', 34], ['treatment', 33], ['treatment-b', 33]),
        payloads: { control: JSON.stringify({ color: 'blue', n }), treatment: JSON.stringify({ color: 'green', n, copy: 'Try it now' }), 'treatment-b': '"plain"' },
      },
    });
  }
  flags.push({ key: 'org-rollout', filters: { aggregation_group_type_index: 0, groups: [rollout(50)] } });
  flags.push({ key: 'org-enterprise', filters: { aggregation_group_type_index: 0, groups: [rollout(100, [{ key: 'plan', operator: 'exact', value: 'enterprise', type: 'group', group_type_index: 0 }])] } });
  flags.push({ key: 'instance-large', filters: { aggregation_group_type_index: 1, groups: [rollout(100, [{ key: 'seats', operator: 'gt', value: '50', type: 'group', group_type_index: 1 }])] } });
  flags.push({ key: 'with-payload', filters: { groups: [rollout(80)], payloads: { true: JSON.stringify({ banner: 'Welcome back', items: [1, 2, 3] }) } } });
  return flags;
}

/** The flag that depends on another is created last, once the other's id is known. */
const dependentFlag = (proPlanId) => ({ key: 'pro-and-v2', filters: { groups: [rollout(100, [{ key: String(proPlanId), type: 'flag', value: true, operator: 'flag_evaluates_to' }, person('app_version', 'semver_gte', '2.0.0')])] } });

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

/** Persons `user-<i>` (one distinct id each), two group types and their groups; written with the service stopped. */
async function generate(url, projectId) {
  const started = Date.now();
  await copyRows(url, 'COPY person (id, project_id, uuid, properties, is_identified, created_at) FROM STDIN', PERSONS, (i) =>
    `${i + 1}\t${projectId}\t${randomUUID()}\t${copyText(JSON.stringify(personProperties(i)))}\ttrue\t${new Date(Date.now() - (PERSONS - i) * 1000).toISOString()}\n`,
  );
  await sql(url, `SELECT setval('person_id_seq', $1)`, [PERSONS]);
  await copyRows(url, 'COPY person_distinct_id (project_id, distinct_id, person_id) FROM STDIN', PERSONS, (i) => `${projectId}\tuser-${i}\t${i + 1}\n`);
  await sql(url, `INSERT INTO group_type_mapping (project_id, group_type, group_type_index) VALUES ($1, 'organization', 0), ($1, 'instance', 1)`, [projectId]);
  await copyRows(url, 'COPY "group" (project_id, group_type_index, group_key, properties) FROM STDIN', ORGANIZATIONS + INSTANCES, (i) => {
    const [index, key] = i < ORGANIZATIONS ? [0, `org-${i}`] : [1, `instance-${i - ORGANIZATIONS}`];
    return `${projectId}\t${index}\t${key}\t${copyText(JSON.stringify({ plan: PLANS[i % 5], seats: (i * 7) % 120, industry: i % 2 ? 'software' : 'retail' }))}\n`;
  });
  await sql(url, 'ANALYZE');
  return (Date.now() - started) / 1000;
}

/**
 * Request bodies in a fixed random order: 90 % existing persons, 10 % distinct ids nobody has seen;
 * 30 % name an organization (a third of those an instance too), 20 % carry person properties the
 * way posthog-js sends its initial ones.
 */
function requestBodies() {
  const random = prng(42);
  const bodies = [];
  for (let n = 0; n < BODIES; n++) {
    const known = random() < 0.9;
    const body = { token: PROJECT_KEY, distinct_id: known ? `user-${Math.floor(random() * PERSONS)}` : `anon-${Math.floor(random() * 1e9).toString(36)}` };
    const roll = random();
    if (roll < 0.3) {
      body.groups = { organization: `org-${Math.floor(random() * ORGANIZATIONS)}` };
      if (roll < 0.1) body.groups.instance = `instance-${Math.floor(random() * INSTANCES)}`;
    }
    if (random() < 0.2) body.person_properties = { $browser: BROWSERS[n % 4], $initial_referring_domain: '$direct' };
    bodies.push(JSON.stringify(body));
  }
  return bodies;
}

/** Each request takes the next body of the pool, from a random starting point. */
function bodyCycle(bodies) {
  const offset = Math.floor(Math.random() * bodies.length);
  return (n) => bodies[(offset + n) % bodies.length];
}

/** autocannon at max over `connections`, a body per request from the pool. */
function loadBodies(url, bodies, options) {
  const body = bodyCycle(bodies);
  let n = 0;
  const setupRequest = (request) => {
    request.body = body(n++);
    return request;
  };
  return load({ url, requests: [{ method: 'POST', setupRequest }], ...options });
}

/**
 * Steal: the share of the two vCPUs the host gave to other guests during a phase (from /proc/stat). On a
 * shared host it swings from 0 to 25 % between minutes and moves every number here with it.
 */
function stealMeter() {
  const times = () => {
    try {
      return readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    } catch {
      return null;
    }
  };
  const before = times();
  return () => {
    const after = times();
    if (!before || !after) return '?';
    const delta = after.map((value, i) => value - before[i]);
    return Math.round((100 * (delta[7] ?? 0)) / delta.reduce((sum, value) => sum + value, 0));
  };
}

/** The process and its children (the HTTP children of an API cluster). */
function processTree(pid) {
  try {
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)]).toString().split('\n').map((line) => Number(line.trim())).filter(Boolean);
    return [pid, ...children];
  } catch {
    return [pid];
  }
}

/** RSS of the process and its children together, from one `ps` call. */
function rssMb(pid) {
  try {
    const lines = execFileSync('ps', ['-o', 'rss=', '-p', processTree(pid).join(',')]).toString().split('\n');
    const kb = lines.reduce((sum, line) => sum + (Number(line.trim()) || 0), 0);
    return kb > 0 ? Math.round(kb / 1024) : '?';
  } catch {
    return '?'; // every one of them exited
  }
}

/** Warm-up at max, then max (CONNECTIONS connections) and each paced rate, each SECONDS long, for one route. */
async function measureRoute(baseUrl, route, bodies, pid) {
  const url = `${baseUrl}${route}`;
  await loadBodies(url, bodies, { duration: WARMUP_SECONDS, connections: CONNECTIONS });
  const phase = async (drive) => {
    const tree = processTree(pid);
    const [others, steal, cpu, started] = [otherProcessesCpu(tree), stealMeter(), cpuSecondsOf(tree), Date.now()];
    const result = await drive();
    const cpuPercent = Math.round((100 * (cpuSecondsOf(tree) - cpu)) / ((Date.now() - started) / 1000));
    return { ...result, rss: rssMb(pid), others: others.percent(), steal: steal(), cpu: cpuPercent };
  };
  const max = await phase(() => loadBodies(url, bodies, { duration: SECONDS, connections: CONNECTIONS }));
  const paced = [];
  for (const rate of PACED_RATES) paced.push(await phase(() => pacedLoad({ url, body: bodyCycle(bodies), rate, duration: SECONDS, connections: CONNECTIONS })));
  return { max, paced };
}

async function createFlags(baseUrl, projectId) {
  const post = async (body) => {
    const response = await fetch(`${baseUrl}/api/projects/${projectId}/feature_flags/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${PERSONAL_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw new Error(`flag ${body.key}: ${response.status} ${(await response.text()).slice(0, 300)}`);
    return response.json();
  };
  const ids = new Map();
  for (const flag of flagDefinitions()) ids.set(flag.key, (await post(flag)).id);
  await post(dependentFlag(ids.get('pro-plan')));
  return ids.size + 1;
}

/** One reply per route, checked, as the bare reference's fixed reply and as a sanity check of the data set. */
async function sampleReplies(baseUrl, flagCount) {
  const replies = {};
  for (const route of ROUTES) {
    const response = await fetch(`${baseUrl}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: PROJECT_KEY, distinct_id: 'user-1234', groups: { organization: 'org-7' } }) });
    const body = await response.json();
    const flags = body.featureFlags ?? body.flags ?? {};
    if (response.status !== 200 || Object.keys(flags).length !== flagCount || body.errorsWhileComputingFlags) {
      throw new Error(`${route}: ${response.status}, ${Object.keys(flags).length} flags, ${JSON.stringify(body).slice(0, 300)}`);
    }
    replies[route.split('?')[0]] = body;
  }
  return replies;
}

async function referenceBare(replies, bodies) {
  const port = await freePort();
  const bare = startProcess([join(__dirname, 'bare-fastify.js')], { PORT: String(port), BARE_REPLIES: JSON.stringify(replies) });
  try {
    await new Promise((resolve) => setTimeout(resolve, 800));
    const results = {};
    for (const route of ROUTES) results[route] = await measureRoute(`http://127.0.0.1:${port}`, route, bodies, bare.child.pid);
    return results;
  } finally {
    await bare.stop();
  }
}

function report(row, route, ours, bare, bytes, label) {
  const line = (a, b) =>
    `p50 ${a.p50} / p99 ${a.p99} ms, ${a.non2xx + a.errors} errors, API ${a.cpu} % CPU, RSS ${a.rss} MB, other processes ${a.others} % CPU, steal ${a.steal} %; bare: ${b.requestsPerSec} req/s, p50 ${b.p50} / p99 ${b.p99} ms, RSS ${b.rss} MB, steal ${b.steal} %`;
  row(`${route} ${label}(max, ${CONNECTIONS} conn.)`, 'requests/s', ours.max.requestsPerSec, line(ours.max, bare.max));
  PACED_RATES.forEach((rate, i) => {
    const [paced, barePaced] = [ours.paced[i], bare.paced[i]];
    row(`${route} ${label}at ${rate.toLocaleString('en')} req/s`, 'p50 / p99 latency (ms)', `${paced.p50} / ${paced.p99}`, `${paced.requestsPerSec} req/s done, ${line(paced, barePaced)}; reply ${bytes} bytes`);
  });
}

async function runDecide(row, run = Date.now().toString(36)) {
  const database = `hogbase_bench_decide_${run}`;
  const prefix = `hbdecide${run}`;
  await sql(POSTGRES, `CREATE DATABASE ${database}`);
  const url = databaseUrl(POSTGRES, database);
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const flags = nodeFlags();
  const env = { DATABASE_URL: url, REDIS_URL: REDIS, QUEUE_PREFIX: prefix, INIT_PROJECT_API_KEY: PROJECT_KEY, INIT_PERSONAL_API_KEY: PERSONAL_KEY, LOG_LEVEL: 'warn', ROLE: 'api', PORT: String(port) };
  let api = startProcess([...flags, 'dist/main.js'], env);
  try {
    await waitForHttp(`${baseUrl}/_readyz`);
    // The schema and first project exist now; the data goes in with the service stopped.
    await api.stop();
    const [{ id: projectId }] = await sql(url, 'SELECT id FROM project WHERE api_token = $1', [PROJECT_KEY]);
    const seconds = await generate(url, projectId);
    row(`decide data set: ${PERSONS.toLocaleString('en')} persons`, 'COPY + ANALYZE (s)', seconds.toFixed(1), `one distinct id each; ${ORGANIZATIONS} organizations, ${INSTANCES} instances`);
    api = startProcess([...flags, 'dist/main.js'], env);
    await waitForHttp(`${baseUrl}/_readyz`);
    const flagCount = await createFlags(baseUrl, projectId);
    const replies = await sampleReplies(baseUrl, flagCount);
    await api.stop();
    const bodies = requestBodies();
    const measured = [];
    for (const processes of API_PROCESSES) {
      api = startProcess([...flags, 'dist/main.js'], { ...env, API_PROCESSES: processes });
      await waitForHttp(`${baseUrl}/_readyz`);
      const children = processTree(api.child.pid).length - 1;
      const label = children > 0 ? `[cluster of ${children}] ` : '[1 process] ';
      row(`decide service ${label}`, 'API_PROCESSES', processes, children > 0 ? `API cluster: a primary and ${children} HTTP processes` : 'one process');
      const ours = {};
      for (const route of ROUTES) ours[route] = await measureRoute(baseUrl, route, bodies, api.child.pid);
      await api.stop();
      measured.push({ label, ours });
    }
    const bare = await referenceBare(replies, bodies);
    for (const { label, ours } of measured) {
      for (const route of ROUTES) report(row, route, ours[route], bare[route], Buffer.byteLength(JSON.stringify(replies[route.split('?')[0]])), label);
      const peak = Math.max(...ROUTES.flatMap((route) => [ours[route].max, ...ours[route].paced].map((phase) => phase.rss)).filter((mb) => typeof mb === 'number'));
      row(`decide memory ${label}`, 'peak RSS api (MB)', peak, `all API processes together, at the end of a phase; ${flagCount} flags, ${BODIES.toLocaleString('en')} request bodies`);
    }
  } finally {
    await api.stop();
    await sql(POSTGRES, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await removeRedisKeys(REDIS, prefix);
  }
}

// The pieces too, for profiling the service by hand against the same data set and request mix.
module.exports = { runDecide, flagDefinitions, dependentFlag, personProperties, generate, createFlags, requestBodies, loadBodies, bodyCycle };

if (require.main === module) {
  const row = (path, metric, value, reference) =>
    process.stdout.write(`  ${path.padEnd(40)} ${metric.padEnd(26)} ${String(value).padStart(12)}   ${reference ?? ''}\n`);
  runDecide(row).catch((error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(1);
  });
}
