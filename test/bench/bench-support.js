'use strict';
// Shared pieces of the benchmark: processes, load generation, database helpers. Plain JS so that
// `npm run bench` needs nothing but the build.
const { spawn, execFileSync } = require('node:child_process');
const { performance } = require('node:perf_hooks');
const { createServer } = require('node:net');
const { join } = require('node:path');
const { existsSync, readdirSync, readFileSync } = require('node:fs');
const autocannon = require('autocannon');
const { Pool } = require('undici');
const { Client } = require('pg');
const IORedis = require('ioredis');

const ROOT = join(__dirname, '..', '..');
/** Linux reports process CPU times in clock ticks of 1/100 s. */
const CLOCK_TICKS = 100;

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitForHttp(url, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`not ready: ${url}`);
}

/** Resident memory of a process in bytes, from /proc (0 once it is gone). */
function rssOf(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * A child process whose resident memory is sampled while it runs. From /proc, not `ps`: a synchronous `ps` stalled
 * the measuring process's event loop for milliseconds twice a second, inside the latencies it measured.
 */
function startProcess(args, env) {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssOf(child.pid))), 500);
  return {
    child,
    peakRssMb: () => Math.round(peakRss / 1048576),
    stop: () =>
      new Promise((resolve) => {
        clearInterval(sampler);
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/**
 * autocannon with a fixed body, closed loop (each connection sends when its last reply is in); returns
 * requests/s, latency percentiles and error counts. Fixed rates go through `pacedLoad` instead.
 */
function load(options) {
  if (options.overallRate !== undefined) throw new Error('load: a fixed rate is measured with pacedLoad, not autocannon');
  return new Promise((resolve, reject) => {
    autocannon(
      { method: 'POST', headers: JSON_HEADERS, connections: 50, pipelining: 1, ...options },
      (error, result) => {
        if (error) return reject(error);
        resolve({
          requestsPerSec: Math.round(result.requests.average),
          p50: result.latency.p50,
          p99: result.latency.p99,
          total: result['2xx'] + result.non2xx,
          non2xx: result.non2xx,
          errors: result.errors + result.timeouts,
        });
      },
    );
  });
}

/** The value below which `share` of the sorted samples fall (nearest rank), in ms with two decimals. */
function percentile(sorted, share) {
  if (sorted.length === 0) return 0;
  const value = sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)];
  return Math.round(value * 100) / 100;
}

/**
 * A fixed request rate, open loop: request i is due at start + i / rate whatever the replies do, goes out on
 * the first free one of `connections` keep-alive connections, and its latency runs from when it was due to
 * its reply's last byte, so a stall counts against every request it delays (as wrk2 measures). autocannon's
 * `overallRate` sends in bursts and inflates the tail (docs/decisions/0120-open-loop-fixed-rates.md, "Fixed rates are driven open loop").
 * `body` is one body or a function of the request number. `settle` seconds are sent first and not counted: a
 * phase measures the steady state, not its first moments. Returns the shape of `load`, and the measured
 * latencies sorted (`latencies`), so that phases can be pooled.
 */
function pacedLoad({ url, body, rate, duration, connections = 16, headers = JSON_HEADERS, settle = 0 }) {
  const target = new URL(url);
  // undici's dispatcher: less CPU per request than node:http (about 140 against 190 µs here), and the load
  // generator shares the two cores with the server.
  const pool = new Pool(target.origin, { connections, pipelining: 1 });
  const path = target.pathname + target.search;
  const bodyOf = typeof body === 'function' ? body : () => body;
  const total = Math.round(rate * (duration + settle));
  const settleMs = settle * 1000;
  const latencies = new Float64Array(total);
  let sent = 0;
  let done = 0;
  let measured = 0;
  let non2xx = 0;
  let errors = 0;
  return new Promise((resolve) => {
    const started = performance.now();
    const finish = () => {
      if (done < total) return;
      const elapsed = (performance.now() - started) / 1000 - settle;
      const sorted = latencies.subarray(0, measured).sort();
      const result = { requestsPerSec: Math.round(measured / elapsed), p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), total: measured, non2xx, errors, latencies: sorted };
      // The connections close before the next phase starts.
      pool.close().finally(() => resolve(result));
    };
    const record = (due, status) => {
      done++;
      if (due - started >= settleMs) latencies[measured++] = performance.now() - due;
      if (status === 0) errors++;
      else if (status < 200 || status > 299) non2xx++;
      finish();
    };
    const send = (n) => {
      const due = started + (n * 1000) / rate;
      let status = 0;
      // The dispatcher's handler interface: no promise or stream per request, the cheapest way undici offers.
      pool.dispatch(
        { origin: target.origin, path, method: 'POST', headers, body: bodyOf(n) },
        {
          onRequestStart() {},
          onResponseStart(_controller, statusCode) {
            status = statusCode;
          },
          onResponseData() {},
          onResponseEnd() {
            record(due, status);
          },
          onResponseError() {
            record(due, 0);
          },
        },
      );
    };
    // Every millisecond, whatever has come due goes out; a late tick sends its backlog at once.
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - started) * rate) / 1000) + 1);
      while (sent < due) send(sent++);
      if (sent < total) setTimeout(tick, 1);
      else finish(); // only does something when there was nothing to send
    };
    tick();
  });
}

/** A process's name and CPU seconds (user + system) so far, from /proc; null once it is gone. */
function processCpu(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    return { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), seconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS };
  } catch {
    return null;
  }
}

/** CPU seconds these processes have used so far (those already gone count nothing). */
function cpuSecondsOf(pids) {
  return pids.reduce((sum, pid) => sum + (processCpu(pid)?.seconds ?? 0), 0);
}

/** CPU seconds used so far by every process but ours and the servers we load (PostgreSQL, Redis). */
function foreignCpuSeconds(ours) {
  let seconds = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || ours.includes(Number(entry))) continue;
    const cpu = processCpu(entry);
    if (cpu && cpu.name !== 'postgres' && cpu.name !== 'redis-server') seconds += cpu.seconds;
  }
  return seconds;
}

/**
 * The machine is shared: a phase during which other processes used a noticeable share of the two cores
 * says more about them than about us. Processes that exit meanwhile are not counted (a lower bound).
 */
function otherProcessesCpu(childPids) {
  if (!existsSync('/proc/self/stat')) return { percent: () => '?' };
  const ours = [process.pid, ...childPids];
  const started = Date.now();
  const before = foreignCpuSeconds(ours);
  return { percent: () => Math.max(0, Math.round((100 * (foreignCpuSeconds(ours) - before)) / ((Date.now() - started) / 1000))) };
}

async function sql(url, text, params) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}

function databaseUrl(base, name) {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Deletes the Redis keys a service run left under its QUEUE_PREFIX, so a bench leaves Redis as it found it. */
async function removeRedisKeys(redisUrl, prefix) {
  const redis = new IORedis(redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** The PostgreSQL and Redis servers every phase runs against (scratch databases and key prefixes on them). */
const POSTGRES = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * The `node` flags of the service processes a phase starts: the service's own (package.json `config.node_flags`, as
 * `npm start` gives them), then BENCH_NODE_FLAGS (e.g. `--cpu-prof --cpu-prof-dir=…`).
 */
function nodeFlags() {
  return `${require('../../package.json').config.node_flags} ${process.env.BENCH_NODE_FLAGS ?? ''}`.split(' ').filter(Boolean);
}

module.exports = { ROOT, rssOf, nodeFlags, POSTGRES, REDIS, freePort, waitForHttp, startProcess, load, pacedLoad, percentile, sql, databaseUrl, otherProcessesCpu, cpuSecondsOf, removeRedisKeys };
