// Child of cpu-priority.spec.ts: lowers its priority and reports every thread's nice value.
const { readdirSync, readFileSync } = require('node:fs');
const { setPriority } = require('node:os');
const { Worker } = require('node:worker_threads');

const [compiled, nice, before] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const { lowerCpuPriority } = require(compiled);

/** Field 19 of /proc/<tid>/stat is the nice value (the fields after the command name, which is in parentheses). */
const niceOf = (tid) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ')[16]);
const threads = () => readdirSync('/proc/self/task').map(niceOf);

if (before > 0) for (const tid of readdirSync('/proc/self/task')) setPriority(Number(tid), before);
const returned = lowerCpuPriority(nice);
const seen = threads();
const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
worker.once('online', () => {
  // The newest thread is the worker's.
  const ids = readdirSync('/proc/self/task').map(Number).sort((a, b) => a - b);
  const later = niceOf(ids[ids.length - 1]);
  process.send({ returned, threads: seen, later }, () => process.exit(0));
});
