import { fork } from 'node:child_process';
import { join } from 'node:path';
import { ApiError } from '../../../../src/common/errors/api-error';
import type { AnalyticsEngine } from '../../../../src/modules/analytics/engine/analytics-engine';
import { ChdbEngine } from '../../../../src/modules/analytics/engine/chdb-engine';
import { ClickHouseEngineError } from '../../../../src/modules/analytics/engine/clickhouse-error';
import { withQueryErrors } from '../../../../src/modules/analytics/engine/engine-errors';
import { IpcChannel, IpcEngine } from '../../../../src/modules/analytics/engine/ipc-engine';
import { IpcEngineHost } from '../../../../src/modules/analytics/engine/ipc-engine-host';
import { UnavailableEngine } from '../../../../src/modules/analytics/engine/unavailable-engine';
import { engineDirectory, LIMITS, requireChdb } from './engine-test-support';

/** What the other process gets: IPC's default serialization is JSON. */
const overTheWire = <T>(message: T): T => JSON.parse(JSON.stringify(message)) as T;

/** A child's channel to a host in this process, asynchronous and JSON-serialized like IPC; `end()` is the primary going away. */
function channelTo(host: IpcEngineHost): IpcChannel & { end(): void } {
  let onMessage: ((message: unknown) => void) | undefined;
  let onClose: (() => void) | undefined;
  return {
    send: (message) => setImmediate(() => host.handle(overTheWire(message), (reply) => setImmediate(() => onMessage?.(overTheWire(reply))))),
    listen(message, close) {
      [onMessage, onClose] = [message, close];
      return () => (onMessage = undefined);
    },
    end: () => onClose?.(),
  };
}

function fakeEngine(overrides: Partial<AnalyticsEngine> = {}): AnalyticsEngine & { seen: unknown[] } {
  const seen: unknown[] = [];
  return {
    kind: 'embedded',
    seen,
    query: async <R>(sql: unknown) => (seen.push(sql), [{ n: 1 }] as R[]),
    queryBatches: async () => undefined,
    command: async (sql) => void seen.push(sql),
    insert: async (table, rows) => void seen.push({ table, rows }),
    insertTsv: async (table, columns) => void seen.push({ table, columns }),
    close: async () => undefined,
    ...overrides,
  };
}

describe(IpcEngine.name, () => {
  it("learns the primary's engine and forwards every call, 64-bit values intact", async () => {
    const primary = fakeEngine();
    const sut = await IpcEngine.connect(channelTo(new IpcEngineHost(primary)));
    expect(sut.kind).toBe('embedded');
    expect(await sut.query({ text: 'SELECT {p:Int64}', params: { p: 2n ** 62n } })).toEqual([{ n: 1 }]);
    await sut.command('OPTIMIZE TABLE t');
    await sut.insert('t', [{ id: 5n }]);
    expect(primary.seen).toEqual([{ text: 'SELECT {p:Int64}', params: { p: 2n ** 62n } }, { text: 'OPTIMIZE TABLE t', params: {} }, { table: 't', rows: [{ id: 5n }] }]);
  });

  it("translates the primary's failure in the child, from the ClickHouse code it carried", async () => {
    const primary = fakeEngine({ query: () => Promise.reject(new ClickHouseEngineError('Code: 427. DB::Exception: cannot compile re2', 427)) });
    const sut = withQueryErrors(await IpcEngine.connect(channelTo(new IpcEngineHost(primary))), LIMITS);
    await expect(sut.query({ text: 'SELECT 1', params: {} })).rejects.toMatchObject({ status: 400, detail: 'Invalid regular expression in property filters.', attr: 'properties' });
  });

  it("answers with the primary's 503 when the primary has no engine", async () => {
    const sut = await IpcEngine.connect(channelTo(new IpcEngineHost(new UnavailableEngine('Insights need ClickHouse.'))));
    expect(sut.kind).toBe('unavailable');
    const failure = await sut.query({ text: 'SELECT 1', params: {} }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).toBody()).toEqual({ type: 'server_error', code: 'service_unavailable', detail: 'Insights need ClickHouse.', attr: null });
  });

  it('fails the calls still waiting when the primary goes away', async () => {
    const channel = channelTo(new IpcEngineHost(fakeEngine({ query: () => new Promise(() => undefined) })));
    const sut = await IpcEngine.connect(channel);
    const waiting = sut.query({ text: 'SELECT 1', params: {} });
    await new Promise((resolve) => setImmediate(resolve));
    channel.end();
    await expect(waiting).rejects.toThrow('The primary process that runs the analytics engine has gone.');
  });

  it('waits for the answers still due when it closes', async () => {
    let answer!: () => void;
    const sut = await IpcEngine.connect(channelTo(new IpcEngineHost(fakeEngine({ command: () => new Promise<void>((done) => (answer = done)) }))));
    const order: string[] = [];
    void sut.command('SELECT 1').then(() => order.push('answered'));
    await new Promise((resolve) => setImmediate(resolve));
    const closing = sut.close().then(() => order.push('closed'));
    answer();
    await closing;
    expect(order).toEqual(['answered', 'closed']);
  });
});

describe(`${IpcEngineHost.name} with a forked child`, () => {
  const dir = engineDirectory('ipc-engine');
  let host: IpcEngineHost;

  beforeAll(async () => {
    host = new IpcEngineHost(await ChdbEngine.open({ chdb: requireChdb(), path: dir.path, layout: { kind: 'single', database: 'ipc' }, sessions: 2, limits: LIMITS }));
  });

  afterAll(async () => {
    await host?.close();
    dir.remove();
  });

  it("runs a child's DDL, insert and bound select on this process's engine, and its failure translates there", async () => {
    const child = fork(join(__dirname, 'ipc-child.fixture.js'), { stdio: 'inherit' });
    child.on('message', (message) => host.handle(message, (reply) => void (child.connected && child.send(reply))));
    const result = await new Promise((resolve, reject) => {
      child.on('message', (message: { type?: string }) => message?.type === 'fixture-result' && resolve(message));
      child.once('error', reject);
    });
    expect(result).toEqual({
      type: 'fixture-result',
      kind: 'embedded',
      rows: [{ id_text: '9007199254740993', name: "it's" }],
      failure: { status: 400, type: 'validation_error', code: 'invalid_input', detail: 'Invalid regular expression in property filters.', attr: 'properties' },
    });
    await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
  });
});
