'use strict';
// `node test/bench/run.js hostile`: /capture/ and /flags/ latency at fixed rates alone, then beside hostile or heavy bodies —
// waves of 16 concurrent gzip bombs (as gzip writes them, and with a forged size), one 5 MB batch a second, and flag
// requests made to be slow (a 1 MB property, bodies at the flags limit, properties just within what a regex may read) — with
// the API's resident memory sampled every 100 ms. The reference is the same paced load without them, in the same run.
const { fork } = require('node:child_process');
const { gzipSync } = require('node:zlib');
const { join } = require('node:path');
const { rssOf, nodeFlags, POSTGRES, REDIS, freePort, waitForHttp, startProcess, pacedLoad, sql, databaseUrl, removeRedisKeys } = require('./bench-support');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
// BENCH_HOSTILE_RATE: capture requests a second (flags get a fifth of it); 1,000 by default.
const RATE = Number(process.env.BENCH_HOSTILE_RATE ?? 1000);
const FLAGS_RATE = Math.round(RATE / 5);
const PROJECT_KEY = 'phc_BenchmarkHostileKey000000000000000000000';
const PERSONAL_KEY = 'phx_BenchmarkHostilePersonalKey0000000000000';
const BOMBS_AT_ONCE = 16;
// BENCH_HOSTILE_PHASES: a comma-separated subset of bombs, forged, large, flags-over, flags, flags-keys, flags-regex
// (all by default) after the reference.
const PHASES = new Set((process.env.BENCH_HOSTILE_PHASES ?? 'bombs,forged,large,flags-over,flags,flags-keys,flags-regex').split(','));
/** The service's default FLAGS_MAX_BODY_BYTES: hostile flag bodies are made as large as it lets through. */
const FLAGS_LIMIT = 64 * 1024;
const HOSTILE_FLAGS_AT_ONCE = 1;
// The audit's pattern: linear on RE2, but the slowest per character of those tried on re2js (about 2 µs).
const SLOW_PATTERN = '(.*a){20}$';
const REGEX_FLAGS = 5;

/** Samples a process's RSS every 100 ms until stopped; the peak in MB. */
function sampleRss(pid) {
  let peak = rssOf(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 100);
  return () => {
    clearInterval(timer);
    return Math.round(peak / 1048576);
  };
}

/**
 * Sends `body` from a process of its own, `concurrency` requests at a time, wave after wave: `warmedUp` once the
 * first wave is answered (the API's first large payload starts its payload worker), `stop()` for the statuses.
 */
function waves(baseUrl, body, concurrency, pauseMs, path = '/batch/', contentType = 'text/plain') {
  // Structured clone over the IPC channel: the body goes over as bytes, not as JSON.
  const sender = fork(join(__dirname, 'hostile-sender.js'), { serialization: 'advanced' });
  sender.send({ baseUrl, path, contentType, body, concurrency, pauseMs });
  const failed = new Promise((_, reject) => sender.once('exit', (code) => reject(new Error(`hostile sender exited with ${code}`))));
  failed.catch(() => undefined);
  const reply = (key) => Promise.race([failed, new Promise((resolve) => sender.on('message', (message) => key in message && resolve(message[key])))]);
  const summary = reply('summary');
  return {
    warmedUp: reply('warmedUp'),
    stop() {
      sender.send('stop');
      return summary;
    },
  };
}

/**
 * Paced capture (RATE) and flag evaluation (FLAGS_RATE) for SECONDS beside what `startBeside` starts, once that is
 * under way; each load's first second is sent but not counted, so a phase measures its steady state.
 */
async function measureBeside(baseUrl, startBeside) {
  const single = JSON.stringify({ api_key: PROJECT_KEY, event: 'beside', distinct_id: 'paced', properties: { $lib: 'bench' } });
  const flagsBody = JSON.stringify({ api_key: PROJECT_KEY, distinct_id: 'paced' });
  const beside = startBeside?.();
  await beside?.warmedUp;
  const [capture, flags] = await Promise.all([
    pacedLoad({ url: `${baseUrl}/capture/`, body: single, rate: RATE, duration: SECONDS, settle: 1 }),
    pacedLoad({ url: `${baseUrl}/flags/?v=2`, body: flagsBody, rate: FLAGS_RATE, duration: SECONDS, connections: 4, settle: 1 }),
  ]);
  return { capture, flags, other: await beside?.stop() };
}

/** `p50 / p99` of capture and flags, for a row. */
const latencies = ({ capture, flags }) => `${capture.p50} / ${capture.p99}; flags ${flags.p50} / ${flags.p99}`;
const errorsOf = ({ capture, flags }) => capture.non2xx + capture.errors + flags.non2xx + flags.errors;

async function runHostile(row, run) {
  const database = `hogbase_bench_hostile_${run}`;
  await sql(POSTGRES, `CREATE DATABASE ${database}`);
  const prefix = `hbhostile${run}`;
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = { DATABASE_URL: databaseUrl(POSTGRES, database), REDIS_URL: REDIS, QUEUE_PREFIX: prefix, INIT_PROJECT_API_KEY: PROJECT_KEY, INIT_PERSONAL_API_KEY: PERSONAL_KEY, LOG_LEVEL: 'warn' };
  const api = startProcess([...nodeFlags(), 'dist/main.js'], { ...env, ROLE: 'api', PORT: String(port) });
  // BENCH_HOSTILE_NO_WORKER: the API alone (events wait in Redis), to tell the API's own cost from the machine's.
  const worker = process.env.BENCH_HOSTILE_NO_WORKER ? null : startProcess([...nodeFlags(), 'dist/main.js'], { ...env, ROLE: 'worker', PORT: String(await freePort()) });
  try {
    await waitForHttp(`${baseUrl}/_readyz`);
    const pid = api.child.pid;
    const rate = `${RATE.toLocaleString('en')} + ${FLAGS_RATE} req/s`;
    const metric = 'capture p50 / p99; flags p50 / p99 (ms)';
    await measureBeside(baseUrl); // warm-up
    const idleRss = Math.round(rssOf(pid) / 1048576);
    const alone = await measureBeside(baseUrl);
    row(`/capture/ + /flags/ at ${rate}, alone (reference)`, metric, latencies(alone), `${errorsOf(alone)} errors; API RSS ${idleRss} MB`);

    // 256 MB of spaces in 250 KB: each would inflate to 256 MB; the cap is 5 × MAX_BODY_BYTES. Its trailer says so,
    // and the API refuses it without inflating; the forged copy's trailer claims 1 KB, so it is inflated up to the cap.
    const bomb = gzipSync(Buffer.alloc(256 * 1024 * 1024, 0x20), { level: 9 });
    const forged = Buffer.from(bomb);
    forged.writeUInt32LE(1024, forged.length - 4);
    const bombPhases = [['bombs', 'gzip bombs', bomb], ['forged', 'gzip bombs with a forged size', forged]].filter(([phase]) => PHASES.has(phase));
    for (const [, label, body] of bombPhases) {
      const peak = sampleRss(pid);
      const bombs = await measureBeside(baseUrl, () => waves(baseUrl, body, BOMBS_AT_ONCE, 0));
      const bombPeak = peak();
      row(`/capture/ + /flags/ at ${rate}, ${BOMBS_AT_ONCE} ${label} at a time`, metric, latencies(bombs), `${errorsOf(bombs)} errors; bombs: ${bombs.other}`);
      row(`API memory, ${BOMBS_AT_ONCE} ${label} at a time`, 'peak RSS (MB)', bombPeak, `idle ${idleRss} MB: +${bombPeak - idleRss} MB`);
    }

    if (PHASES.has('large')) {
      // A 5 MB batch of five 0.95 MB events, once a second.
      const big = JSON.stringify({ api_key: PROJECT_KEY, batch: Array.from({ length: 5 }, (_, i) => ({ event: 'big', distinct_id: `big-${i}`, properties: { blob: 'x'.repeat(950_000) } })) });
      const peak = sampleRss(pid);
      const large = await measureBeside(baseUrl, () => waves(baseUrl, big, 1, 1000));
      row(`/capture/ + /flags/ at ${rate}, a 5 MB batch each second`, metric, latencies(large), `${errorsOf(large)} errors; big batches: ${large.other}; peak RSS ${peak()} MB`);
    }
    await hostileFlagPhases(baseUrl, row, rate, metric);
  } finally {
    await api.stop();
    await worker?.stop();
    await sql(POSTGRES, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await removeRedisKeys(REDIS, prefix);
  }
}

/**
 * Flag requests made to be slow, HOSTILE_FLAGS_AT_ONCE at a time every 100 ms (at most 10 a second, beside 200 paced
 * ordinary ones): the audit's 1 MB property (over the flags body limit), a body at the limit holding one long property
 * for flags whose regex reads it, a body at the limit full of small properties, and a property exactly as long as that
 * regex may read, so each request costs the most evaluation the bounds allow. Sent as fast as answered, any request
 * (a cheap one too) takes all the CPU it is given: the question is what each hostile one costs the others.
 */
async function hostileFlagPhases(baseUrl, row, rate, metric) {
  const wanted = ['flags-over', 'flags', 'flags-keys', 'flags-regex'].filter((phase) => PHASES.has(phase));
  if (wanted.length === 0) return;
  for (let i = 0; i < REGEX_FLAGS; i++) await createRegexFlag(baseUrl, `slow-regex-${i}`);
  const attack = (personProperties) => JSON.stringify({ api_key: PROJECT_KEY, distinct_id: 'attacker', person_properties: personProperties });
  const room = FLAGS_LIMIT - attack({ bio: '' }).length - 16;
  const bodies = {
    'flags-over': [attack({ bio: 'a'.repeat(1_000_000) }), 'a 1 MB property (over the flags limit)'],
    flags: [attack({ bio: 'a'.repeat(room) }), `a ${Math.round(room / 1024)} KB property`],
    'flags-keys': [attack(manyKeys(room)), `${Math.round(room / 1024)} KB of small properties`],
    'flags-regex': [attack({ bio: 'a'.repeat(regexBound()) }), `a property at the regex bound of ${REGEX_FLAGS} regex flags`],
  };
  for (const phase of wanted) {
    const [body, label] = bodies[phase];
    const paced = `${label}, ${HOSTILE_FLAGS_AT_ONCE} every 100 ms`;
    const beside = await measureBeside(baseUrl, () => waves(baseUrl, body, HOSTILE_FLAGS_AT_ONCE, 100, '/flags/?v=2', 'application/json'));
    row(`/capture/ + /flags/ at ${rate}, hostile /flags/: ${paced}`, metric, latencies(beside), `${errorsOf(beside)} errors; hostile: ${beside.other}`);
  }
}

/** The longest text the service lets SLOW_PATTERN read (its work bound over the pattern's program size). */
function regexBound() {
  const { RE2JS } = require('re2js');
  const { MAX_REGEX_WORK } = require('../../dist/kernel/property-match');
  return Math.floor(MAX_REGEX_WORK / RE2JS.compile(SLOW_PATTERN).programSize());
}

/** Person properties `k0: 0, k1: 1, …` filling about `bytes` of JSON: the most keys a body of that size holds. */
function manyKeys(bytes) {
  const properties = {};
  for (let i = 0, size = 0; size < bytes; i++) {
    properties[`k${i}`] = i;
    size += 2 * String(i).length + 6;
  }
  return properties;
}

async function createRegexFlag(baseUrl, key) {
  const condition = { key: 'bio', value: SLOW_PATTERN, operator: 'regex', type: 'person' };
  const res = await fetch(`${baseUrl}/api/projects/@current/feature_flags/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${PERSONAL_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ key, filters: { groups: [{ properties: [condition], rollout_percentage: 100 }] } }),
  });
  if (res.status !== 201) throw new Error(`creating flag ${key}: ${res.status} ${await res.text()}`);
}

module.exports = { runHostile };
