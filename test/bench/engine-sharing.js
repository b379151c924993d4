'use strict';
// What an API cluster's HTTP child pays to reach the embedded engine its primary owns: the same reads timed in the
// engine's own process and from a forked child through the IPC engine (node's IPC channel, JSON), for results of a
// few rows up to a hundred thousand (a large funnel's actors). Prints a table. Run after a build:
// `node test/bench/engine-sharing.js` (uses dist/).
const { fork } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const SIZES = [1, 1_000, 10_000, 100_000];
const limits = { timeoutMs: 120_000, maxThreads: 2, maxMemoryBytes: 1 << 30, threadPriority: 0 };
const layout = { kind: 'single', database: 'sharing' };
const sqlFor = (rows) => ({ text: 'SELECT toString(number) AS actor, [number, number + 1] AS times FROM numbers({rows:UInt64})', params: { rows } });

async function median(run) {
  const samples = [];
  await run();
  for (let i = 0; i < RUNS; i++) {
    const started = process.hrtime.bigint();
    await run();
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return Math.round(samples[Math.floor(samples.length / 2)] * 10) / 10;
}

async function child() {
  const { IpcEngine } = require('../../dist/modules/analytics/engine/ipc-engine');
  const engine = await IpcEngine.connect();
  const results = {};
  for (const rows of SIZES) results[rows] = await median(() => engine.query(sqlFor(rows)));
  process.send({ type: 'sharing-result', results });
  await engine.close();
  process.disconnect();
}

async function main() {
  const { ChdbEngine } = require('../../dist/modules/analytics/engine/chdb-engine');
  const { IpcEngineHost } = require('../../dist/modules/analytics/engine/ipc-engine-host');
  const dir = mkdtempSync(join(tmpdir(), 'hogbase-sharing-'));
  const engine = await ChdbEngine.open({ chdb: require('chdb'), path: dir, layout, sessions: 2, limits });
  try {
    const direct = {};
    for (const rows of SIZES) direct[rows] = await median(() => engine.query(sqlFor(rows)));
    const host = new IpcEngineHost(engine);
    const worker = fork(__filename, ['child']);
    const viaIpc = await new Promise((resolve, reject) => {
      worker.on('message', (message) => (message?.type === 'sharing-result' ? resolve(message.results) : host.handle(message, (reply) => worker.send(reply))));
      worker.on('error', reject);
    });
    console.log(`| rows in the result | in the engine's process (ms, median of ${RUNS}) | from a child over IPC (ms) |`);
    console.log('|---|---|---|');
    for (const rows of SIZES) console.log(`| ${rows.toLocaleString('en')} | ${direct[rows]} | ${viaIpc[rows]} |`);
  } finally {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

(process.argv[2] === 'child' ? child() : main()).catch((error) => {
  console.error(error);
  process.exit(1);
});
