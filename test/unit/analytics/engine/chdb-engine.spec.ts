import { ChParams } from '../../../../src/modules/analytics/engine/ch-sql';
import { ChdbEngine } from '../../../../src/modules/analytics/engine/chdb-engine';
import { ClickHouseEngineError } from '../../../../src/modules/analytics/engine/clickhouse-error';
import { engineDirectory, LIMITS, requireChdb, visitedBatches } from './engine-test-support';

/** The embedded engine on a real chdb, several engines (databases) on one data directory as apps share it. */
describe(ChdbEngine.name, () => {
  const chdb = requireChdb();
  const dir = engineDirectory('chdb-engine');
  /** Returning freed memory after half a second of quiet, not the service's seconds. */
  const IDLE_MS = 500;
  /** The threads the next read of `sut` may use, as other work on the machine would set them; all it may unless a test says. */
  let threadsOfNextRead: number | null = null;
  const open = (database: string, limits = LIMITS, sessions = 2) =>
    ChdbEngine.open({
      chdb, path: dir.path, layout: { kind: 'single', database }, sessions, limits, idleMemoryReturnMs: IDLE_MS,
      readThreads: { next: () => threadsOfNextRead ?? limits.maxThreads, close: () => undefined },
    });
  let sut: ChdbEngine;
  let other: ChdbEngine;

  beforeAll(async () => {
    sut = await open('engine_a');
    other = await open('engine_b', { ...LIMITS, timeoutMs: 200, maxMemoryBytes: 20 * 1024 * 1024 });
    await sut.command(`CREATE TABLE IF NOT EXISTS t (id Int64, name String, tags Array(String)) ENGINE = MergeTree ORDER BY id`);
  });

  afterAll(async () => {
    await Promise.all([sut?.close(), other?.close()]);
    dir.remove();
  });

  it('reads its own writes at once, values bound', async () => {
    await sut.insert('t', [
      { id: 9_007_199_254_740_993n, name: `quote ' and \\ backslash`, tags: ['a'] },
      { id: 2, name: 'two', tags: [] },
    ]);
    const p = new ChParams();
    const text = `SELECT toString(id) AS id_text, name, tags FROM t WHERE name IN ${p.add([`quote ' and \\ backslash`, 'x'])} AND id > ${p.add(1)} ORDER BY id`;
    expect(await sut.query(p.sql(text))).toEqual([{ id_text: '9007199254740993', name: `quote ' and \\ backslash`, tags: ['a'] }]);
  });

  it('hands a large result over in batches, in order, each visited before the next is read', async () => {
    const { batches, values } = await visitedBatches(sut, 200_000);
    expect(batches).toBeGreaterThan(1);
    expect(values).toEqual(Array.from({ length: 200_000 }, (_, i) => i));
  });

  it("bounds the embedded server's caches instead of sizing them for a machine of its own", async () => {
    const text = `SELECT name, value FROM system.server_settings WHERE name IN ('mark_cache_size', 'primary_index_cache_size') ORDER BY name`;
    expect(await sut.query({ text, params: {} })).toEqual([{ name: 'mark_cache_size', value: '67108864' }, { name: 'primary_index_cache_size', value: '67108864' }]);
  });

  it('runs statements with bound values', async () => {
    const p = new ChParams();
    await sut.command(p.sql(`INSERT INTO t SELECT ${p.add(3)}, ${p.add('from a command')}, ${p.add(['x', 'y'])}`));
    expect(await sut.query({ text: 'SELECT name, tags FROM t WHERE id = 3', params: {} })).toEqual([{ name: 'from a command', tags: ['x', 'y'] }]);
  });

  it('keeps each app in its own database on the shared directory', async () => {
    const tables = { text: `SELECT currentDatabase() AS db, count() AS tables FROM system.tables WHERE database = currentDatabase() AND name = 't'`, params: {} };
    expect([await sut.query(tables), await other.query(tables)]).toEqual([[{ db: 'engine_a', tables: 1 }], [{ db: 'engine_b', tables: 0 }]]);
  });

  it('runs every read with the query limits and a lower thread priority', async () => {
    const text = `SELECT getSetting('max_execution_time') AS time, getSetting('max_threads') AS threads, getSetting('max_memory_usage') AS memory,
      getSetting('os_thread_priority') AS priority, getSetting('output_format_json_quote_64bit_integers') AS quoted`;
    expect(await other.query({ text, params: {} })).toEqual([{ time: 0.2, threads: 2, memory: 20 * 1024 * 1024, priority: 10, quoted: false }]);
  });

  it('runs each read, streamed or not, with the threads it may use as it starts, and all of them again once other work stops', async () => {
    const threads = { text: `SELECT getSetting('max_threads') AS threads`, params: {} };
    const streamed = async () => {
      const rows: unknown[] = [];
      await sut.queryBatches(threads, (batch) => void rows.push(...batch));
      return rows;
    };
    threadsOfNextRead = 1;
    const beside = [await sut.query(threads), await streamed()];
    threadsOfNextRead = null;
    expect({ beside, alone: [await sut.query(threads), await streamed()] }).toEqual({
      beside: [[{ threads: 1 }], [{ threads: 1 }]],
      alone: [[{ threads: 2 }], [{ threads: 2 }]],
    });
  });

  it('runs a read beside a streamed per-actor read: one sees the other running', async () => {
    const marker = `marker-${Date.now()}`;
    const slow = sut.queryBatches({ text: `SELECT sum(sleepEachRow(0.005)) AS slept, {m:String} AS m FROM numbers(200) SETTINGS max_block_size = 10`, params: { m: marker } }, () => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const seen = await sut.query<{ running: number }>({
      text: `SELECT count() AS running FROM system.processes WHERE query LIKE {pattern:String} AND query NOT LIKE '%system.processes%'`,
      params: { pattern: `%${marker}%` },
    });
    expect(seen).toEqual([{ running: 1 }]);
    await slow;
  });

  it.each([
    ['a pattern RE2 rejects', `SELECT match('a', {p:String}) AS m`, { p: '(' }, 427],
    ['the time limit', `SELECT count() FROM numbers(100000000000)`, {}, 159],
    // One allocation of 800 MB: past the 20 MB limit at once, long before the time limit even on a busy machine.
    ['the memory limit', `SELECT length(range(100000000)) AS n`, {}, 241],
    ['an unknown table', `SELECT * FROM missing`, {}, 60],
  ])('reports %s with its ClickHouse code', async (_what, text, params, code) => {
    const failure = await other.query({ text, params }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ClickHouseEngineError);
    expect((failure as ClickHouseEngineError).code).toBe(code);
  });

  it('answers the next read whole after a read that failed while it was answering', async () => {
    // The failed read has written part of its answer (a block) before the error: none of it may reach the next one.
    const failing = `SELECT throwIf(number = 200000, 'stopped midway') AS n FROM numbers(300000) SETTINGS max_block_size = 1000`;
    await expect(sut.query({ text: failing, params: {} })).rejects.toBeInstanceOf(ClickHouseEngineError);
    expect(await sut.query({ text: 'SELECT 1 AS one', params: {} })).toEqual([{ one: 1 }]);
    await expect(sut.queryBatches({ text: failing, params: {} }, () => undefined)).rejects.toBeInstanceOf(ClickHouseEngineError);
    const batches: unknown[] = [];
    await sut.queryBatches({ text: 'SELECT 1 AS one', params: {} }, (rows) => void batches.push(rows));
    expect(batches).toEqual([[{ one: 1 }]]);
  });

  it('refuses a second data directory in the same process', async () => {
    const elsewhere = engineDirectory('chdb-elsewhere');
    const refused = ChdbEngine.open({ chdb, path: elsewhere.path, layout: { kind: 'single', database: 'x' }, sessions: 1, limits: LIMITS });
    await expect(refused).rejects.toThrow(`cannot also open ${elsewhere.path}`);
    elsewhere.remove();
  });

  it('returns the memory its statements freed once it has run nothing for a moment, once per quiet spell', async () => {
    const quiet = () => new Promise((resolve) => setTimeout(resolve, IDLE_MS + 300));
    // Counted by ClickHouse itself, read on a session of the test's own so that reading starts no purge.
    const counter = new chdb.Session(dir.path);
    const purges = () => Number(counter.query(`SELECT sum(value) FROM system.events WHERE event = 'MemoryAllocatorPurge'`, 'TSV').trim() || 0);
    await quiet(); // the other engines' last purges
    const before = purges();
    await sut.query({ text: 'SELECT count() AS c FROM numbers(1000000) GROUP BY number % 1000', params: {} });
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS / 5)); // a dashboard's next tile
    await sut.query({ text: 'SELECT 1 AS one', params: {} });
    expect(purges()).toBe(before); // not between the statements of a burst
    await quiet();
    expect(purges()).toBe(before + 1);
    await quiet();
    expect(purges()).toBe(before + 1); // a purge is no statement of its own to be followed by another
    counter.close();
  });

  it('lets a running query finish when it closes, and refuses calls after', async () => {
    const closing = await open('engine_c', LIMITS, 1);
    const order: string[] = [];
    const running = closing.query({ text: 'SELECT count() AS c FROM numbers(5000000) WHERE sipHash64(number) % 2 = 0', params: {} });
    void running.then(() => order.push('query answered'));
    await closing.close();
    order.push('closed');
    expect(await running).toEqual([{ c: expect.any(Number) }]);
    expect(order).toEqual(['query answered', 'closed']);
    await expect(closing.query({ text: 'SELECT 1', params: {} })).rejects.toThrow('The analytics engine is closed.');
  });
});
