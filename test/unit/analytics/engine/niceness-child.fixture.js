'use strict';
// The embedded engine in a process of its own, which the test starts without CAP_SYS_NICE (as the Docker image runs):
// runs a few reads and a write at the thread priority it is given, then prints every thread of the process with
// its name and nice value, as JSON on stdout.
require('./swc-require');
const { readdirSync, readFileSync } = require('node:fs');
const { getPriority } = require('node:os');

const engineDir = '../../../../src/modules/analytics/engine';
const { ChdbEngine } = require(`${engineDir}/chdb-engine.ts`);
const { loadChdb } = require(`${engineDir}/chdb-handle.ts`);

async function main() {
  const [path, priority] = process.argv.slice(2);
  const limits = { timeoutMs: 30000, maxThreads: 2, maxMemoryBytes: 1 << 30, threadPriority: Number(priority) };
  const engine = await ChdbEngine.open({ chdb: loadChdb().chdb, path, layout: { kind: 'single', database: 'niceness' }, sessions: 1, limits });
  await engine.command('CREATE TABLE IF NOT EXISTS t (n UInt64) ENGINE = MergeTree ORDER BY n');
  await engine.command('INSERT INTO t SELECT number FROM numbers(1000000)');
  for (let i = 0; i < 3; i++) await engine.query({ text: 'SELECT sum(n % 7) AS s FROM t', params: {} });
  await engine.queryBatches({ text: 'SELECT n FROM t LIMIT 10', params: {} }, () => undefined);
  const threads = readdirSync('/proc/self/task').map((id) => ({
    name: readFileSync(`/proc/self/task/${id}/comm`, 'utf8').trim(),
    nice: getPriority(Number(id)),
  }));
  await engine.close();
  process.stdout.write(JSON.stringify(threads));
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack));
  process.exitCode = 1;
});
