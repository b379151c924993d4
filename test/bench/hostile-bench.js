'use strict';
// `node test/bench/run.js hostile`: /capture/ latency at a fixed rate alone, then beside hostile or heavy bodies —
// waves of 16 concurrent gzip bombs, and one 5 MB batch a second — with the API's resident memory sampled every
// 100 ms. The reference is the same paced capture without the extra bodies, measured in the same run.
const { readFileSync } = require('node:fs');
const { gzipSync } = require('node:zlib');
const { Pool } = require('undici');
const { nodeFlags, POSTGRES, REDIS, freePort, waitForHttp, startProcess, pacedLoad, sql, databaseUrl, removeRedisKeys } = require('./bench-support');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RATE = 1000;
const PROJECT_KEY = 'phc_BenchmarkHostileKey000000000000000000000';
const BOMBS_AT_ONCE = 16;

/** Resident memory of a process in bytes, from /proc (0 once it is gone). */
function rssOf(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Samples a process's RSS every 100 ms until stopped; the peak in MB. */
function sampleRss(pid) {
  let peak = rssOf(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 100);
  return () => {
    clearInterval(timer);
    return Math.round(peak / 1048576);
  };
}

/** Sends `body` with `concurrency` requests at a time, wave after wave, until `until()`; counts the statuses. */
async function waves(baseUrl, body, concurrency, until, pauseMs) {
  const pool = new Pool(baseUrl, { connections: concurrency });
  const statuses = {};
  while (!until()) {
    const replies = await Promise.all(
      Array.from({ length: concurrency }, () =>
        pool
          .request({ path: '/batch/', method: 'POST', headers: { 'content-type': 'text/plain' }, body })
          .then(async (res) => {
            await res.body.dump();
            return res.statusCode;
          })
          .catch((error) => error.code ?? 'error'),
      ),
    );
    for (const status of replies) statuses[status] = (statuses[status] ?? 0) + 1;
    if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  await pool.close();
  return Object.entries(statuses).map(([status, n]) => `${n}× ${status}`).join(', ');
}

/** Paced capture for SECONDS while `beside` runs; the capture result and what `beside` returned. */
async function captureBeside(baseUrl, beside) {
  let done = false;
  const single = JSON.stringify({ api_key: PROJECT_KEY, event: 'beside', distinct_id: 'paced', properties: { $lib: 'bench' } });
  const [paced, other] = await Promise.all([
    pacedLoad({ url: `${baseUrl}/capture/`, body: single, rate: RATE, duration: SECONDS }).finally(() => (done = true)),
    beside(() => done),
  ]);
  return { paced, other };
}

async function runHostile(row, run) {
  const database = `hogbase_bench_hostile_${run}`;
  await sql(POSTGRES, `CREATE DATABASE ${database}`);
  const prefix = `hbhostile${run}`;
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = { DATABASE_URL: databaseUrl(POSTGRES, database), REDIS_URL: REDIS, QUEUE_PREFIX: prefix, INIT_PROJECT_API_KEY: PROJECT_KEY, LOG_LEVEL: 'warn' };
  const api = startProcess([...nodeFlags(), 'dist/main.js'], { ...env, ROLE: 'api', PORT: String(port) });
  // BENCH_HOSTILE_NO_WORKER: the API alone (events wait in Redis), to tell the API's own cost from the machine's.
  const worker = process.env.BENCH_HOSTILE_NO_WORKER ? null : startProcess(['dist/main.js'], { ...env, ROLE: 'worker', PORT: String(await freePort()) });
  try {
    await waitForHttp(`${baseUrl}/_readyz`);
    const pid = api.child.pid;
    const rate = `${RATE.toLocaleString('en')} req/s`;
    await captureBeside(baseUrl, async () => undefined); // warm-up
    const idleRss = Math.round(rssOf(pid) / 1048576);
    const alone = await captureBeside(baseUrl, async () => undefined);
    row(`/capture/ at ${rate}, alone (reference)`, 'p50 / p99 latency (ms)', `${alone.paced.p50} / ${alone.paced.p99}`, `API RSS ${idleRss} MB`);

    // 256 MB of spaces in 250 KB: each would inflate to 256 MB; the cap is 5 × MAX_BODY_BYTES.
    const bomb = gzipSync(Buffer.alloc(256 * 1024 * 1024, 0x20), { level: 9 });
    let peak = sampleRss(pid);
    const bombs = await captureBeside(baseUrl, (stop) => waves(baseUrl, bomb, BOMBS_AT_ONCE, stop, 0));
    const bombPeak = peak();
    row(`/capture/ at ${rate}, ${BOMBS_AT_ONCE} gzip bombs at a time`, 'p50 / p99 latency (ms)', `${bombs.paced.p50} / ${bombs.paced.p99}`, `${bombs.paced.non2xx + bombs.paced.errors} capture errors; bombs: ${bombs.other}`);
    row(`API memory, ${BOMBS_AT_ONCE} gzip bombs at a time`, 'peak RSS (MB)', bombPeak, `idle ${idleRss} MB: +${bombPeak - idleRss} MB`);

    // A 5 MB batch of five 0.95 MB events, once a second.
    const big = JSON.stringify({ api_key: PROJECT_KEY, batch: Array.from({ length: 5 }, (_, i) => ({ event: 'big', distinct_id: `big-${i}`, properties: { blob: 'x'.repeat(950_000) } })) });
    peak = sampleRss(pid);
    const large = await captureBeside(baseUrl, (stop) => waves(baseUrl, big, 1, stop, 1000));
    row(`/capture/ at ${rate}, a 5 MB batch each second`, 'p50 / p99 latency (ms)', `${large.paced.p50} / ${large.paced.p99}`, `${large.paced.non2xx + large.paced.errors} capture errors; big batches: ${large.other}; peak RSS ${peak()} MB`);
  } finally {
    await api.stop();
    await worker?.stop();
    await sql(POSTGRES, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await removeRedisKeys(REDIS, prefix);
  }
}

module.exports = { runHostile };
