import { Session } from 'chdb';
import { ChParams, ChSql } from '../../../../src/modules/analytics/engine/ch-sql';

/**
 * An in-memory ClickHouse (chdb) for one test file: its tables created before the file's tests, the engine dropped
 * after them. `load` replaces a table's rows (in the order given); `rows` runs a read built with bound values, `read`
 * one already built.
 */
export function scratchEngine(...tables: string[]) {
  let session: Session;
  beforeAll(async () => {
    session = new Session();
    for (const create of tables) await session.queryAsync(create);
  }, 60_000);
  afterAll(() => session?.cleanup());
  // Plain functions, not methods: specs take them out of the object.
  async function read<T>(sql: ChSql): Promise<T[]> {
    return (await session.queryBindAsync(sql.text, sql.params, { format: 'JSON' })).json<{ data: T[] }>().data;
  }
  return {
    async load(table: string, rows: readonly object[]): Promise<void> {
      await session.queryAsync(`TRUNCATE TABLE ${table}`);
      if (rows.length > 0) await session.queryAsync(`INSERT INTO ${table} FORMAT JSONEachRow ${rows.map((row) => JSON.stringify(row)).join('\n')}`);
    },
    rows<T>(build: (p: ChParams) => string): Promise<T[]> {
      const p = new ChParams();
      return read<T>(p.sql(build(p)));
    },
    read,
  };
}
