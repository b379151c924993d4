import { Readable } from 'node:stream';
import { ApiError, ErrorBody } from '../../../common/errors/api-error';
import type { AnalyticsEngine } from './analytics-engine';
import type { ChSql } from './ch-sql';
import { clickhouseCode, ClickHouseEngineError } from './clickhouse-error';

/**
 * The messages between the HTTP children of an API cluster and the primary that owns the embedded engine
 * (node:cluster IPC). Values are encoded so that JSON, the channel's serialization, keeps them: a bigint
 * (64-bit ids and bounds) becomes a tagged string and comes back a bigint.
 */
export const ENGINE_REQUEST = 'hogbase:engine-request';
export const ENGINE_REPLY = 'hogbase:engine-reply';

export type EngineRequest = { type: typeof ENGINE_REQUEST; id: number } & (
  | { op: 'describe' }
  | { op: 'query' | 'command'; sql: WireValue }
  | { op: 'insert'; table: string; rows: WireValue }
  | { op: 'insertTsv'; table: string; columns: string[]; text: string }
);

export type EngineReply = { type: typeof ENGINE_REPLY; id: number } & ({ ok: true; result: WireValue } | { ok: false; error: WireError });

/** A call as the child makes it, before encoding. */
export type EngineOperation =
  | { op: 'describe' }
  | { op: 'query' | 'command'; sql: ChSql }
  | { op: 'insert'; table: string; rows: ReadonlyArray<Record<string, unknown>> }
  /** One piece of a TabSeparated insert, ending on a row boundary (the child cuts the stream). */
  | { op: 'insertTsv'; table: string; columns: string[]; text: string };

export function encodeRequest(id: number, operation: EngineOperation): EngineRequest {
  const head = { type: ENGINE_REQUEST, id } as const;
  switch (operation.op) {
    case 'describe':
      return { ...head, op: 'describe' };
    case 'insert':
      return { ...head, op: 'insert', table: operation.table, rows: encodeValue(operation.rows) };
    case 'insertTsv':
      return { ...head, ...operation };
    default:
      return { ...head, op: operation.op, sql: encodeValue(operation.sql) };
  }
}

export function decodeRequest(request: EngineRequest): EngineOperation {
  switch (request.op) {
    case 'describe':
      return { op: 'describe' };
    case 'insert':
      return { op: 'insert', table: request.table, rows: decodeValue(request.rows) as Record<string, unknown>[] };
    case 'insertTsv':
      return { op: 'insertTsv', table: request.table, columns: request.columns, text: request.text };
    default:
      return { op: request.op, sql: decodeValue(request.sql) as ChSql };
  }
}

/** A failure as the child rebuilds it: ClickHouse's code for the translation there, or the whole API error. */
export interface WireError {
  message: string;
  code: number | null;
  api?: ErrorBody & { status: number };
}

/** JSON-safe data: what {@link encodeValue} produces. */
export type WireValue = null | boolean | number | string | WireValue[] | { [key: string]: WireValue };

const BIGINT_TAG = '$hogbase_bigint';

export function encodeValue(value: unknown): WireValue {
  if (typeof value === 'bigint') return { [BIGINT_TAG]: value.toString() };
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map(encodeValue);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined).map(([key, item]) => [key, encodeValue(item)]));
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') return value;
  throw new Error(`cannot send a ${typeof value} to the primary process`);
}

export function decodeValue(value: WireValue): unknown {
  if (Array.isArray(value)) return value.map(decodeValue);
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === BIGINT_TAG && typeof value[BIGINT_TAG] === 'string') return BigInt(value[BIGINT_TAG]);
  return Object.fromEntries(keys.map((key) => [key, decodeValue(value[key])]));
}

export function encodeError(error: unknown): WireError {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ApiError) return { message, code: null, api: { status: error.status, ...error.toBody() } };
  return { message, code: clickhouseCode(error) };
}

export function decodeError(error: WireError): Error {
  if (error.api) return new ApiError(error.api.status, error.api.type, error.api.code, error.api.detail, error.api.attr);
  return new ClickHouseEngineError(error.message, error.code);
}

export function isEngineRequest(message: unknown): message is EngineRequest {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === ENGINE_REQUEST;
}

export function isEngineReply(message: unknown): message is EngineReply {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === ENGINE_REPLY;
}

/** What the primary does for one request; the reply always comes, with the failure in it if there is one. */
export async function answerRequest(engine: AnalyticsEngine, request: EngineRequest): Promise<EngineReply> {
  const reply = { type: ENGINE_REPLY, id: request.id } as const;
  try {
    return { ...reply, ok: true, result: encodeValue(await perform(engine, request)) };
  } catch (error) {
    return { ...reply, ok: false, error: encodeError(error) };
  }
}

async function perform(engine: AnalyticsEngine, request: EngineRequest): Promise<unknown> {
  const operation = decodeRequest(request);
  switch (operation.op) {
    case 'describe':
      return engine.kind;
    case 'query':
      return engine.query(operation.sql);
    case 'command':
      return engine.command(operation.sql).then(() => null);
    case 'insert':
      return engine.insert(operation.table, operation.rows).then(() => null);
    case 'insertTsv':
      return engine.insertTsv(operation.table, operation.columns, Readable.from([operation.text])).then(() => null);
  }
}
