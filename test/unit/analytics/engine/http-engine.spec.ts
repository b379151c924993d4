import { request } from 'node:http';
import { gzipSync, gunzipSync } from 'node:zlib';
import { ChParams } from '../../../../src/modules/analytics/engine/ch-sql';
import { ClickHouseEngineError } from '../../../../src/modules/analytics/engine/clickhouse-error';
import { HttpEngine } from '../../../../src/modules/analytics/engine/http-engine';
import { migrateSchema } from '../../../../src/modules/analytics/engine/schema/migrate-schema';
import { SCHEMA_MIGRATIONS } from '../../../../src/modules/analytics/engine/schema/schema-migrations';
import { ClickHouseHttpFront } from '../../../support/clickhouse-http-front';
import { engineDirectory, LIMITS, requireChdb, visitedBatches } from './engine-test-support';

const CREDENTIALS = { user: 'reader', password: 'p@ss:word' };
/** One data directory for the whole file: the engines and the front of both blocks share the process's chdb. */
const dir = engineDirectory('http-engine');

afterAll(() => dir.remove());

/** A raw HTTP exchange, the body as it came (fetch would decompress it). */
function exchange(url: string, body: Buffer, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The real @clickhouse/client over real HTTP, against the embedded engine behind the test front. */
describe(HttpEngine.name, () => {
  let front: ClickHouseHttpFront;
  let sut: HttpEngine;
  let tight: HttpEngine;

  beforeAll(async () => {
    front = await ClickHouseHttpFront.start({ chdb: requireChdb(), path: dir.path, credentials: CREDENTIALS });
    sut = await HttpEngine.open({ url: front.url(CREDENTIALS), layout: { kind: 'single', database: 'http_a' }, limits: LIMITS });
    tight = await HttpEngine.open({ url: front.url(CREDENTIALS), layout: { kind: 'single', database: 'http_b' }, limits: { ...LIMITS, timeoutMs: 200, maxMemoryBytes: 20 * 1024 * 1024 } });
    await sut.command('CREATE TABLE IF NOT EXISTS t (id Int64, name String, tags Array(String), note Nullable(String)) ENGINE = MergeTree ORDER BY id');
  });

  afterAll(async () => {
    await Promise.all([sut?.close(), tight?.close()]);
    await front?.close();
  });

  it('creates its database on open and works in it', async () => {
    expect(await sut.query({ text: 'SELECT currentDatabase() AS db', params: {} })).toEqual([{ db: 'http_a' }]);
  });

  it('inserts rows and reads them back at once with bound values', async () => {
    const awkward = "tab\there, quote ' and backslash \\ and newline\n";
    await sut.insert('t', [
      { id: 9_007_199_254_740_993n, name: awkward, tags: ["it's", 'b'], note: null },
      { id: 2, name: 'two', tags: [], note: 'n' },
    ]);
    const p = new ChParams();
    const text = `SELECT toString(id) AS id_text, name, tags, note FROM t WHERE name IN ${p.add([awkward, 'x'])} AND has(tags, ${p.add("it's")}) AND id > ${p.add(1)}`;
    expect(await sut.query(p.sql(text))).toEqual([{ id_text: '9007199254740993', name: awkward, tags: ["it's", 'b'], note: null }]);
  });

  it('hands a large result over in batches, in order, each visited before the next is read', async () => {
    const { batches, values } = await visitedBatches(sut, 200_000);
    expect(batches).toBeGreaterThan(1);
    expect(values).toEqual(Array.from({ length: 200_000 }, (_, i) => i));
  });

  it('binds a NULL and runs statements with bound values', async () => {
    await sut.command({ text: 'INSERT INTO t SELECT {id:Int64}, {name:String}, {tags:Array(String)}, {note:Nullable(String)}', params: { id: 3, name: 'bound', tags: ['x'], note: null } });
    expect(await sut.query({ text: 'SELECT name, tags, note FROM t WHERE id = {id:Int64}', params: { id: 3 } })).toEqual([{ name: 'bound', tags: ['x'], note: null }]);
  });

  it('sends the query limits and the thread priority with every read', async () => {
    const text = `SELECT getSetting('max_execution_time') AS time, getSetting('max_threads') AS threads, getSetting('max_memory_usage') AS memory, getSetting('os_thread_priority') AS priority`;
    expect(await tight.query({ text, params: {} })).toEqual([{ time: 0.2, threads: 2, memory: 20 * 1024 * 1024, priority: 10 }]);
  });

  it('applies the schema migrations over HTTP', async () => {
    expect(await migrateSchema(tight, { kind: 'single', database: 'http_b' })).toEqual(SCHEMA_MIGRATIONS.map((m) => m.version));
  });

  it.each([
    ['a pattern RE2 rejects', `SELECT match('a', {p:String}) AS m`, { p: '(' }, 427],
    ['the time limit', 'SELECT count() FROM numbers(100000000000)', {}, 159],
    // One allocation of 800 MB: past the memory limit at once, long before the time limit even on a busy machine.
    ['the memory limit', 'SELECT length(range(100000000)) AS n', {}, 241],
    ['an unknown table', 'SELECT * FROM missing', {}, 60],
  ])('carries the ClickHouse code of %s through HTTP', async (_what, text, params, code) => {
    const failure = await tight.query({ text, params }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ClickHouseEngineError);
    expect((failure as ClickHouseEngineError).code).toBe(code);
  });

  it('fails to open with a wrong password, with the code the server gave', async () => {
    const refused = HttpEngine.open({ url: front.url({ ...CREDENTIALS, password: 'wrong' }), layout: { kind: 'single', database: 'x' }, limits: LIMITS });
    await expect(refused).rejects.toMatchObject({ code: 516 });
  });
});

describe(ClickHouseHttpFront.name, () => {
  let front: ClickHouseHttpFront;

  beforeAll(async () => {
    front = await ClickHouseHttpFront.start({ chdb: requireChdb(), path: dir.path });
  });

  afterAll(async () => {
    await front?.close();
  });

  it('answers a ping', async () => {
    const res = await fetch(`${front.url()}/ping`);
    expect([res.status, await res.text()]).toEqual([200, 'Ok.\n']);
  });

  it('takes a gzip body and answers in gzip when asked', async () => {
    const res = await exchange(`${front.url()}/?enable_http_compression=1&param_x=a%5Ctb`, gzipSync('SELECT {x:String} AS x FORMAT JSONEachRow'), {
      'Content-Encoding': 'gzip',
      'Accept-Encoding': 'gzip',
    });
    expect([res.status, res.headers['content-encoding']]).toEqual([200, 'gzip']);
    expect(gunzipSync(res.body).toString()).toBe('{"x":"a\\tb"}\n');
  });

  it('answers a failure with HTTP 500, the exception text and its code in a header', async () => {
    const res = await fetch(`${front.url()}/?query=${encodeURIComponent('SELECT * FROM missing')}`);
    expect(res.status).toBe(500);
    expect(res.headers.get('x-clickhouse-exception-code')).toBe('60');
    expect(await res.text()).toMatch(/^Code: 60\. DB::Exception: .*\(UNKNOWN_TABLE\)/);
  });
});
