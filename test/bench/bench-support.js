'use strict';
// Shared pieces of the benchmark: processes, load generation, database helpers. Plain JS so that
// `npm run bench` needs nothing but the build.
const { spawn, execFileSync } = require('node:child_process');
const { createServer } = require('node:net');
const { join } = require('node:path');
const { existsSync, readdirSync, readFileSync } = require('node:fs');
const autocannon = require('autocannon');
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

/** A child process whose resident memory is sampled while it runs. */
function startProcess(args, env) {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  let peakRss = 0;
  const sampler = setInterval(() => {
    try {
      const kb = Number(execFileSync('ps', ['-o', 'rss=', '-p', String(child.pid)]).toString().trim());
      peakRss = Math.max(peakRss, kb * 1024);
    } catch {
      // exited
    }
  }, 500);
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

/** autocannon with a fixed body; returns requests/s, latency percentiles and error counts. */
function load(options) {
  return new Promise((resolve, reject) => {
    autocannon(
      { method: 'POST', headers: { 'content-type': 'application/json' }, connections: 50, pipelining: 1, ...options },
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

module.exports = { ROOT, freePort, waitForHttp, startProcess, load, sql, databaseUrl, otherProcessesCpu, cpuSecondsOf, removeRedisKeys };
