import { Session } from 'chdb';
import { actorSequencesSql } from '../../../src/modules/analytics/sql/event-scope.sql';

/** Actor sequences on the embedded engine: ties in time broken by the UUID's text, and a column's NULLs kept in place. */
describe('actorSequencesSql', () => {
  let session: Session;
  beforeAll(() => (session = new Session()));
  afterAll(() => session?.cleanup());

  // Two events at one instant whose UUIDs compare one way as text and the other way as stored halves.
  const events = `(SELECT toUUID(u) AS uuid, toDateTime64(at, 6, 'UTC') AS timestamp, a AS actor_id, v AS value FROM values('u String, at String, a UInt64, v Nullable(String)',
    ('00000000-0000-0002-0000-000000000001', '2024-01-01 00:00:02', 1, 'late'),
    ('00000000-0000-0001-0000-000000000000', '2024-01-01 00:00:01', 1, NULL),
    ('00000000-0000-0000-ffff-ffffffffffff', '2024-01-01 00:00:01', 1, 'tied'),
    ('00000000-0000-0000-0000-000000000009', '2024-01-01 00:00:00', 1, 'first'))) AS e`;
  const read = async (byUuid: boolean) => {
    const sql = actorSequencesSql('e.actor_id', [{ name: 'items', sql: 'e.value', nullable: true }, { name: 'ids', sql: 'toString(e.uuid)' }], events, ['1'], { byUuid });
    return (await session.queryAsync(sql, { format: 'JSON' })).json<{ data: Array<{ times: number[]; items: Array<string | null>; ids: string[] }> }>().data;
  };

  it('orders events by time, then by UUID text, and keeps a column\'s NULLs aligned with their events', async () => {
    const [row] = await read(true);
    expect(row.times).toEqual([1704067200000, 1704067201000, 1704067201000, 1704067202000]);
    expect(row.items).toEqual(['first', 'tied', null, 'late']);
    expect(row.ids).toEqual(['00000000-0000-0000-0000-000000000009', '00000000-0000-0000-ffff-ffffffffffff', '00000000-0000-0001-0000-000000000000', '00000000-0000-0002-0000-000000000001']);
  });

  it('keeps each event\'s columns together when ordered by time alone', async () => {
    const [row] = await read(false);
    const pairs = row.ids.map((id, i) => `${id.slice(-4)} ${row.items[i]}`);
    expect(pairs.slice(1, 3).sort()).toEqual(['0000 null', 'ffff tied']);
    expect([pairs[0], pairs[3]]).toEqual(['0009 first', '0001 late']);
  });
});
