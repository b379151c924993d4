import { ApiError } from '../../../../src/common/errors/api-error';
import type { AnalyticsEngine } from '../../../../src/modules/analytics/engine/analytics-engine';
import { ClickHouseEngineError } from '../../../../src/modules/analytics/engine/clickhouse-error';
import {
  answerRequest,
  decodeError,
  decodeRequest,
  decodeValue,
  encodeError,
  encodeRequest,
  encodeValue,
  EngineOperation,
  EngineReply,
  EngineRequest,
} from '../../../../src/modules/analytics/engine/ipc-messages';

/** What the other process gets: IPC's default serialization is JSON. */
function overTheWire<T>(message: T): T {
  return JSON.parse(JSON.stringify(message)) as T;
}

describe('engine IPC messages', () => {
  it('carries 64-bit integers, nested lists and NULLs through JSON unchanged', () => {
    const value = { team: 2n ** 63n - 1n, ids: [1n, -2n], names: ["a'b", null], nested: { deep: [[3n]] }, flag: true, ratio: 0.5 };
    expect(decodeValue(overTheWire(encodeValue(value)))).toEqual(value);
  });

  it('sends dates as their ISO text and leaves undefined fields out, as JSONEachRow would', () => {
    expect(decodeValue(overTheWire(encodeValue({ at: new Date('2024-01-02T03:04:05.678Z'), gone: undefined })))).toEqual({ at: '2024-01-02T03:04:05.678Z' });
  });

  it('refuses what JSON cannot carry rather than losing it', () => {
    expect(() => encodeValue({ f: () => 1 })).toThrow('cannot send a function to the primary process');
  });

  it.each<[string, EngineOperation]>([
    ['describe', { op: 'describe' }],
    ['query', { op: 'query', sql: { text: 'SELECT {p0:Int64}', params: { p0: 9_007_199_254_740_993n } } }],
    ['command', { op: 'command', sql: { text: 'DELETE FROM t WHERE _batch = {p0:UInt64}', params: { p0: 7 } } }],
    ['insert', { op: 'insert', table: 'events', rows: [{ uuid: 'u', person_id: 12n, tags: ['x'] }] }],
  ])('round-trips a %s request with its id', (_op, operation) => {
    const request = overTheWire(encodeRequest(41, operation));
    expect([request.type, request.id]).toEqual(['hogbase:engine-request', 41]);
    expect(decodeRequest(request)).toEqual(operation);
  });

  it('keeps the ClickHouse code of a failure so the child can translate it', () => {
    const decoded = decodeError(overTheWire(encodeError(Object.assign(new Error('Code: 427. DB::Exception: cannot compile re2'), { clickhouseCode: 427 }))));
    expect(decoded).toBeInstanceOf(ClickHouseEngineError);
    expect([decoded.message, (decoded as ClickHouseEngineError).code]).toEqual(['Code: 427. DB::Exception: cannot compile re2', 427]);
  });

  it('carries an API error whole (the unavailable engine answers with one)', () => {
    const decoded = decodeError(overTheWire(encodeError(new ApiError(503, 'server_error', 'service_unavailable', 'Insights need ClickHouse.'))));
    expect(decoded).toBeInstanceOf(ApiError);
    expect({ status: (decoded as ApiError).status, ...(decoded as ApiError).toBody() }).toEqual({ status: 503, type: 'server_error', code: 'service_unavailable', detail: 'Insights need ClickHouse.', attr: null });
  });
});

describe(answerRequest.name, () => {
  const calls: unknown[] = [];
  const engine: AnalyticsEngine = {
    kind: 'embedded',
    query: async <R>(sql: unknown) => (calls.push(sql), [{ n: 1 }] as R[]),
    queryBatches: async () => undefined,
    command: async (sql) => void calls.push(sql),
    insert: async () => Promise.reject(new ClickHouseEngineError('Code: 60. DB::Exception: Unknown table', 60)),
    insertTsv: async (table, columns, source) => {
      for await (const text of source as AsyncIterable<string>) calls.push({ table, columns, text });
    },
    close: async () => undefined,
  };
  const ask = async (operation: EngineOperation): Promise<EngineReply> => overTheWire(await answerRequest(engine, overTheWire(encodeRequest(5, operation)) as EngineRequest));

  it('answers with the result under the request id', async () => {
    expect(await ask({ op: 'query', sql: { text: 'SELECT {p:Int64}', params: { p: 3n } } })).toEqual({ type: 'hogbase:engine-reply', id: 5, ok: true, result: [{ n: 1 }] });
    expect(calls).toContainEqual({ text: 'SELECT {p:Int64}', params: { p: 3n } });
  });

  it("answers with the engine's kind", async () => {
    expect(await ask({ op: 'describe' })).toEqual({ type: 'hogbase:engine-reply', id: 5, ok: true, result: 'embedded' });
  });

  it('answers a failure with its message and code instead of throwing', async () => {
    expect(await ask({ op: 'insert', table: 'nope', rows: [] })).toEqual({
      type: 'hogbase:engine-reply',
      id: 5,
      ok: false,
      error: { message: 'Code: 60. DB::Exception: Unknown table', code: 60 },
    });
  });
});
