'use strict';
// The hostile side of `hostile-bench.js`, in a process of its own: the client that measures capture latency must
// not share an event loop or a heap with the attacker's sends and garbage, as it would not in life.
const { Pool } = require('undici');
const { lowerCpuPriority } = require('../../dist/common/process/cpu-priority');

// In life the attacker's own CPU is on another machine. Here it shares the service's two cores, and the reference
// phase has no sender at all: at the lowest priority on every thread (V8's helpers too), the sender takes only the
// CPU the service and the measuring client leave over, so a phase measures what the bodies cost the service, not
// what sending them costs.
lowerCpuPriority(19);

/** Sends the body to `path` with `concurrency` requests at a time, wave after wave, until told to stop; says when the first wave is answered. */
async function waves({ baseUrl, path, contentType, body, concurrency, pauseMs }) {
  let stopped = false;
  process.once('message', () => (stopped = true));
  const pool = new Pool(baseUrl, { connections: concurrency });
  const statuses = {};
  let warmedUp = false;
  while (!stopped) {
    const replies = await Promise.all(
      Array.from({ length: concurrency }, () =>
        pool
          .request({ path, method: 'POST', headers: { 'content-type': contentType }, body })
          .then(async (res) => {
            await res.body.dump();
            return res.statusCode;
          })
          .catch((error) => error.code ?? 'error'),
      ),
    );
    for (const status of replies) statuses[status] = (statuses[status] ?? 0) + 1;
    if (!warmedUp) process.send({ warmedUp: (warmedUp = true) });
    if (pauseMs && !stopped) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  await pool.close();
  return Object.entries(statuses).map(([status, n]) => `${n}× ${status}`).join(', ');
}

// The first message says what to send: { baseUrl, path, contentType, body, concurrency, pauseMs }; the next one, 'stop'.
process.once('message', (setup) => {
  waves({ ...setup, body: Buffer.from(setup.body) }).then((summary) => process.send({ summary }, () => process.exit(0)));
});
