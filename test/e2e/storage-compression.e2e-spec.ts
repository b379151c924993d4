import { sendJson } from '../support/capture-client';
import { waitForQueuesIdle } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';
import { EventPartitionsService } from '../../src/modules/events/event-partitions.service';

/** Large values are compressed with lz4 where PostgreSQL has it (the test server has; the embedded one has not). */
describe('Storage compression', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startTestApp({ env: { ROLE: 'all' } })));
  afterAll(() => t.close());

  const methodsOf = async (tables: string[]) =>
    t.sql(
      `SELECT c.relname AS table, a.attname AS column, a.attcompression AS method
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
        WHERE c.relname = ANY($1) AND a.attname IN ('properties', 'elements_chain') ORDER BY 1, 2`,
      [tables],
    );

  it('sets lz4 on the bulk columns of events (every partition), persons and groups', async () => {
    const partitions = await t.sql(`SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = 'event'::regclass ORDER BY 1`);
    expect(partitions.length).toBeGreaterThanOrEqual(4); // the default and the monthly ones made at boot
    const tables = ['event', 'person', 'group', ...partitions.map((p) => p.name as string)];
    const methods = await methodsOf(tables);
    expect(methods).toHaveLength(2 + 1 + 1 + 2 * partitions.length);
    expect(new Set(methods.map((row) => row.method))).toEqual(new Set(['l']));
  });

  it('gives the same to monthly partitions made later', async () => {
    await t.app.get(EventPartitionsService).ensureUpcoming(new Date(Date.UTC(2031, 0, 15)));
    const later = ['event_y2031m01', 'event_y2031m02', 'event_y2031m03'];
    const methods = await methodsOf(later);
    expect(methods.map((row) => `${row.table}.${row.column}=${row.method}`)).toEqual(
      later.flatMap((table) => [`${table}.elements_chain=l`, `${table}.properties=l`]),
    );
  });

  it('stores a large event compressed with lz4, and reads it back exactly', async () => {
    // About 900 KB of session-recording-like JSON text: repetitive enough for any compressor to take.
    const blob = Array.from({ length: 12_000 }, (_, i) => `{"type":3,"data":{"source":1,"positions":[{"x":${i % 997},"y":${i % 389}}]}}`).join(',');
    const res = await sendJson(t, '/batch/', { api_key: t.keys.projectApiKey, batch: [{ event: 'recording', distinct_id: 'compressed-1', properties: { blob } }] });
    expect(res.status).toBe(200);
    await waitForQueuesIdle(t, 30_000);
    const rows = await t.sql(`SELECT pg_column_compression(properties) AS method, properties->>'blob' = $1 AS same FROM event WHERE distinct_id = 'compressed-1'`, [blob]);
    expect(rows).toEqual([{ method: 'lz4', same: true }]);
  });
});
