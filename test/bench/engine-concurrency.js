'use strict';
// Two analytic reads at once on the embedded engine (chdb): do they run side by side or one after the other?
// Compares the engine's two paths (ChdbEngine.query: queryBindAsync, one at a time process-wide; queryBatches:
// bound streams on two sessions) with chdb's raw calls and with unbound queryAsync, on a scan of a few hundred
// milliseconds; `ticks` counts 5 ms timers that fired meanwhile (an event loop held by a call fires fewer).
// Prints a table. Run after a build: `node test/bench/engine-concurrency.js` (uses dist/).
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const chdb = require('chdb');
const { ChdbEngine } = require('../../dist/modules/analytics/engine/chdb-engine');

const ROWS = Number(process.env.BENCH_ROWS ?? 300_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
// BENCH_HASH=1 makes each row cost a hash (CPU-bound) instead of a modulo (a light scan).
const FILTER = process.env.BENCH_HASH === '1' ? 'sipHash64(number) % 7' : 'number % 7';
const SQL = `SELECT count() AS c, {tag:String} AS tag FROM numbers({rows:UInt64}) WHERE ${FILTER} = {rest:UInt64}`;
const limits = { timeoutMs: 120_000, maxThreads: 1, maxMemoryBytes: 1 << 30, threadPriority: 0 };

async function timed(run) {
  const started = process.hrtime.bigint();
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  await run();
  clearInterval(timer);
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, ticks };
}

async function median(run) {
  const results = [];
  for (let i = 0; i < RUNS; i++) results.push(await timed(run));
  results.sort((a, b) => a.ms - b.ms);
  return results[Math.floor(results.length / 2)];
}

function row(label, one, two) {
  const ratio = (two.ms / one.ms).toFixed(2);
  process.stdout.write(`  ${label.padEnd(44)} ${one.ms.toFixed(0).padStart(7)} ms ${two.ms.toFixed(0).padStart(7)} ms ${ratio.padStart(7)}x ${String(two.ticks).padStart(8)}\n`);
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'hogbase-engine-bench-'));
  const engine = await ChdbEngine.open({ chdb, path: dir, layout: { kind: 'single', database: 'bench' }, sessions: 2, limits });
  const a = new chdb.Session(dir);
  const b = new chdb.Session(dir);
  const params = (tag) => ({ tag, rows: ROWS, rest: 3 });
  const unbound = `SELECT count() AS c, 'x' AS tag FROM numbers(${ROWS}) WHERE ${FILTER} = 3 SETTINGS max_threads = 1`;
  const bound = `${SQL} SETTINGS max_threads = 1`;
  process.stdout.write(`two concurrent reads of ${ROWS} rows filtered on ${FILTER}, max_threads=1, median of ${RUNS}\n`);
  process.stdout.write(`  ${'path'.padEnd(44)} ${'one'.padStart(10)} ${'two at once'.padStart(10)} ${'ratio'.padStart(8)} ${'ticks(5ms)'.padStart(8)}\n`);
  row(
    'ChdbEngine.query (queryBindAsync)',
    await median(() => engine.query({ text: SQL, params: params('one') })),
    await median(() => Promise.all([engine.query({ text: SQL, params: params('a') }), engine.query({ text: SQL, params: params('b') })])),
  );
  const batches = (tag) => engine.queryBatches({ text: SQL, params: params(tag) }, () => undefined);
  row('ChdbEngine.queryBatches (queryStreamBind, 2 sessions)', await median(() => batches('one')), await median(() => Promise.all([batches('a'), batches('b')])));
  row(
    'chdb queryBindAsync, 2 sessions',
    await median(() => a.queryBindAsync(bound, params('one'))),
    await median(() => Promise.all([a.queryBindAsync(bound, params('a')), b.queryBindAsync(bound, params('b'))])),
  );
  row(
    'chdb queryAsync (values in the text), 2 sessions',
    await median(() => a.queryAsync(unbound)),
    await median(() => Promise.all([a.queryAsync(unbound), b.queryAsync(unbound)])),
  );
  a.close();
  b.close();
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
