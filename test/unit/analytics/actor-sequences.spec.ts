import { Session } from 'chdb';
import { actorSequencesSql, SequenceOptions } from '../../../src/modules/analytics/sql/event-scope.sql';

/** Actor sequences on the embedded engine: ties in time broken by the UUID's text or a column, and a column's NULLs kept in place. */
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
  type Row = { times: number[]; items: Array<string | null>; ids: string[]; masks: number[] };
  const run = async (sql: string) => (await session.queryAsync(sql, { format: 'JSON' })).json<{ data: Row[] }>().data;
  const read = (ties: SequenceOptions['ties']) => run(actorSequencesSql('e.actor_id', [{ name: 'items', sql: 'e.value', nullable: true }, { name: 'ids', sql: 'toString(e.uuid)' }], events, ['1'], { ties }));

  it('orders events by time, then by UUID text, and keeps a column\'s NULLs aligned with their events', async () => {
    const [row] = await read('uuid');
    expect(row.times).toEqual([1704067200000, 1704067201000, 1704067201000, 1704067202000]);
    expect(row.items).toEqual(['first', 'tied', null, 'late']);
    expect(row.ids).toEqual(['00000000-0000-0000-0000-000000000009', '00000000-0000-0000-ffff-ffffffffffff', '00000000-0000-0001-0000-000000000000', '00000000-0000-0002-0000-000000000001']);
  });

  it('keeps each event\'s columns together when ordered by time alone', async () => {
    const [row] = await read('any');
    const pairs = row.ids.map((id, i) => `${id.slice(-4)} ${row.items[i]}`);
    expect(pairs.slice(1, 3).sort()).toEqual(['0000 null', 'ffff tied']);
    expect([pairs[0], pairs[3]]).toEqual(['0009 first', '0001 late']);
  });

  // Bits at one instant in the opposite order of their UUIDs, at fractions of a ms and before 1970.
  const masked = `(SELECT toUUID(u) AS uuid, toDateTime64(at, 6, 'UTC') AS timestamp, 1 AS actor_id, toUInt8(m) AS mask FROM values('u String, at String, m UInt8',
    ('00000000-0000-0000-0000-000000000001', '2024-01-01 00:00:01.000250', 4),
    ('00000000-0000-0000-0000-000000000002', '2024-01-01 00:00:01.000250', 1),
    ('00000000-0000-0000-0000-000000000003', '1969-12-31 23:59:59', 2),
    ('00000000-0000-0000-0000-000000000004', '2024-01-01 00:00:01.000250', 255))) AS e`;

  it('orders events at one instant by a column, packed with the instant when it is the only small one, or sorted with the others', async () => {
    const packed = await run(actorSequencesSql('e.actor_id', [{ name: 'masks', sql: 'e.mask', bits: 8 }], masked, ['1'], { ties: { column: 'masks' } }));
    const sorted = await run(actorSequencesSql('e.actor_id', [{ name: 'masks', sql: 'e.mask' }, { name: 'ids', sql: 'toString(e.uuid)' }], masked, ['1'], { ties: { column: 'masks' } }));
    expect(packed[0].times).toEqual([-1000, 1704067201000.25, 1704067201000.25, 1704067201000.25]);
    expect(packed[0].masks).toEqual([2, 1, 4, 255]);
    expect({ times: sorted[0].times, masks: sorted[0].masks }).toEqual({ times: packed[0].times, masks: packed[0].masks });
    expect(sorted[0].ids.map((id) => id.slice(-1))).toEqual(['3', '2', '1', '4']);
  });
});
