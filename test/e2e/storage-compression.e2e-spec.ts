import { sendJson } from '../support/capture-client';
import { waitForQueuesIdle } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';
import { EventPartitionsService } from '../../src/modules/events/event-partitions.service';

/**
 * Large values are compressed with lz4 where PostgreSQL has it, pglz (the default) where it has not: the machine's
 * PostgreSQL decides which the tests expect (Debian's PostgreSQL 15 has lz4; the embedded one has not).
 */
describe('Storage compression', () => {
  let t: TestApp;
  let lz4: boolean;
  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    // Refused by a server without lz4 (an unknown value) or before 14 (an unknown setting).
    lz4 = await t.sql(`SELECT set_config('default_toast_compression', 'lz4', true)`).then(() => true, () => false);
  });
  afterAll(() => t.close());

  const methodsOf = async (tables: string[]) =>
    t.sql(
      `SELECT c.relname AS table, a.attname AS column, a.attcompression AS method
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
        WHERE c.relname = ANY($1) AND a.attname IN ('properties', 'elements_chain') ORDER BY 1, 2`,
      [tables],
    );

  it('sets lz4 (where the server has it) on the bulk columns of events (every partition), persons and groups', async () => {
    const expected = lz4 ? 'l' : ''; // '' is the server's default, pglz
    const partitions = await t.sql(`SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = 'event'::regclass ORDER BY 1`);
    expect(partitions.length).toBeGreaterThanOrEqual(4); // the default and the monthly ones made at boot
    const tables = ['event', 'person', 'group', ...partitions.map((p) => p.name as string)];
    const methods = await methodsOf(tables);
    expect(methods).toHaveLength(2 + 1 + 1 + 2 * partitions.length);
    expect(new Set(methods.map((row) => row.method))).toEqual(new Set([expected]));
  });

  it('gives the same to monthly partitions made later', async () => {
    await t.app.get(EventPartitionsService).ensureUpcoming(new Date(Date.UTC(2031, 0, 15)));
    const later = ['event_y2031m01', 'event_y2031m02', 'event_y2031m03'];
    const methods = await methodsOf(later);
    const expected = lz4 ? 'l' : '';
    expect(methods.map((row) => `${row.table}.${row.column}=${row.method}`)).toEqual(
      later.flatMap((table) => [`${table}.elements_chain=${expected}`, `${table}.properties=${expected}`]),
    );
  });

  it('stores a large event compressed with lz4, and reads it back exactly', async () => {
    // About 750 KB of session-recording-like JSON text: repetitive enough for either compressor to take.
    const blob = Array.from({ length: 12_000 }, (_, i) => `{"type":3,"data":{"source":1,"positions":[{"x":${i % 997},"y":${i % 389}}]}}`).join(',');
    const res = await sendJson(t, '/batch/', { api_key: t.keys.projectApiKey, batch: [{ event: 'recording', distinct_id: 'compressed-1', properties: { blob } }] });
    expect(res.status).toBe(200);
    await waitForQueuesIdle(t, 30_000);
    const rows = await t.sql(`SELECT pg_column_compression(properties) AS method, properties->>'blob' = $1 AS same FROM event WHERE distinct_id = 'compressed-1'`, [blob]);
    expect(rows).toEqual([{ method: lz4 ? 'lz4' : 'pglz', same: true }]);
  });
});
