'use strict';
// The raw-SQL references of the analytics phase, run in a process of their own on the service's data directory
// while the service is stopped (one process may hold an embedded ClickHouse's directory at a time). Reads a JSON
// list of `{ label, sql }` on stdin and prints `{ label, p50, p99, rows }` (or `{ label, error }`) per line, each timed like the service's
// requests: one warm-up, then ITERATIONS runs one after another, under the service's own per-query settings.
const { performance } = require('node:perf_hooks');
const { Session } = require('chdb');
const { percentile } = require('./bench-support');

const [path, database, iterations, threads, memoryMb] = process.argv.slice(2);

async function main() {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const session = new Session(path);
  session.query(`USE \`${database}\``);
  const memory = Number(memoryMb) * 1048576;
  const settings = `SETTINGS max_threads = ${threads}, max_memory_usage = ${memory}, max_bytes_before_external_group_by = ${memory / 2}, max_bytes_before_external_sort = ${memory / 2}`;
  try {
    for (const { label, sql } of JSON.parse(input)) {
      const run = () => session.query(`${sql} ${settings}`, 'JSONCompactEachRow');
      let last;
      try {
        last = run();
      } catch (error) {
        // A reference that fails is reported beside the service's answer, not allowed to end the phase.
        process.stdout.write(`${JSON.stringify({ label, error: String(error.message).split('\n')[0].slice(0, 200) })}\n`);
        continue;
      }
      const samples = [];
      for (let i = 0; i < Number(iterations); i++) {
        const started = performance.now();
        last = run();
        samples.push(performance.now() - started);
      }
      samples.sort((a, b) => a - b);
      const rows = last.split('\n').filter(Boolean).length;
      process.stdout.write(`${JSON.stringify({ label, p50: percentile(samples, 0.5), p99: percentile(samples, 0.99), rows })}\n`);
    }
  } finally {
    session.close();
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
