'use strict';
// A cluster child in miniature: forwards engine calls to the process that forked it, then reports what it saw.
require('./swc-require');

const engineDir = '../../../../src/modules/analytics/engine';
const { IpcEngine, parentChannel } = require(`${engineDir}/ipc-engine.ts`);
const { withQueryErrors } = require(`${engineDir}/engine-errors.ts`);

async function main() {
  const engine = await IpcEngine.connect(parentChannel());
  const limits = { timeoutMs: 30000, maxThreads: 2, maxMemoryBytes: 1 << 30, threadPriority: 10 };
  await engine.command('CREATE TABLE IF NOT EXISTS t (id Int64, name String) ENGINE = MergeTree ORDER BY id');
  await engine.insert('t', [{ id: 9007199254740993n, name: "it's" }]);
  const rows = await engine.query({ text: 'SELECT toString(id) AS id_text, name FROM t WHERE id = {id:Int64}', params: { id: 9007199254740993n } });
  const failure = await withQueryErrors(engine, limits)
    .query({ text: "SELECT match('a', {p:String})", params: { p: '(' } })
    .catch((error) => ({ status: error.status, ...error.toBody() }));
  process.send({ type: 'fixture-result', kind: engine.kind, rows, failure });
  await engine.close();
  process.disconnect();
}

main().catch((error) => {
  process.send({ type: 'fixture-result', error: String(error && error.stack) });
  process.disconnect();
});
