import { ApiError } from '../../../common/errors/api-error';
import { queryTimeoutError } from '../../../database/query-errors';
import type { AnalyticsEngine, QueryLimits } from './analytics-engine';
import type { ChSql } from './ch-sql';
import { CLICKHOUSE_CODES, clickhouseCode } from './clickhouse-error';

const ADVICE = 'narrow the date range, the filters or the breakdown';
/** `match`/`extract` report a pattern RE2 rejects as CANNOT_COMPILE_REGEXP, a few older paths as BAD_ARGUMENTS. */
const REGEXP_TEXT = /regexp|regular expression|re2/i;
/** The server-wide limit (max_server_memory_usage) says "(total)"; a query's own limit does not. */
const SERVER_WIDE = /\(total\)/;

/**
 * What an analytic query's failure means to the caller: the limits it ran into become the documented
 * errors (time 504, memory 400, a pattern the user typed 400), anything else is rethrown as it came.
 * PostHog answers a query over its memory limit with a 400 asking to narrow it (posthog/errors.py).
 */
export function translateQueryError(error: unknown, limits: QueryLimits): unknown {
  const code = clickhouseCode(error);
  const message = error instanceof Error ? error.message : '';
  switch (code) {
    case CLICKHOUSE_CODES.TIMEOUT_EXCEEDED:
      return queryTimeoutError({ what: 'analytics query', ms: limits.timeoutMs, variable: 'ANALYTICS_QUERY_TIMEOUT_MS', advice: ADVICE });
    case CLICKHOUSE_CODES.MEMORY_LIMIT_EXCEEDED:
      return SERVER_WIDE.test(message) ? serverOutOfMemory() : queryOutOfMemory(limits.maxMemoryBytes);
    case CLICKHOUSE_CODES.CANNOT_COMPILE_REGEXP:
      return invalidRegexp();
    case CLICKHOUSE_CODES.BAD_ARGUMENTS:
      return REGEXP_TEXT.test(message) ? invalidRegexp() : error;
    default:
      return error;
  }
}

function invalidRegexp(): ApiError {
  return ApiError.validation('Invalid regular expression in property filters.', 'properties');
}

function queryOutOfMemory(maxMemoryBytes: number): ApiError {
  const mb = Math.round(maxMemoryBytes / (1024 * 1024));
  const detail = `The analytics query needed more memory than its limit of ${mb} MB (ANALYTICS_QUERY_MAX_MEMORY_MB) and was stopped: ${ADVICE}.`;
  return new ApiError(400, 'validation_error', 'memory_limit_exceeded', detail);
}

/** Every query together went past what the engine may use: nothing the caller narrows, so retry later. */
function serverOutOfMemory(): ApiError {
  return ApiError.unavailable('ClickHouse is out of memory for all running queries together; try again shortly.');
}

/** The engine with its query failures translated (commands and inserts are the copy's, and keep theirs). */
export function withQueryErrors(engine: AnalyticsEngine, limits: QueryLimits): AnalyticsEngine {
  return {
    kind: engine.kind,
    async query<R>(sql: ChSql): Promise<R[]> {
      try {
        return await engine.query<R>(sql);
      } catch (error) {
        throw translateQueryError(error, limits);
      }
    },
    async queryBatches<R>(sql: ChSql, visit: (rows: R[]) => Promise<void> | void): Promise<void> {
      try {
        await engine.queryBatches<R>(sql, visit);
      } catch (error) {
        throw translateQueryError(error, limits);
      }
    },
    command: (sql) => engine.command(sql),
    insert: (table, rows) => engine.insert(table, rows),
    insertTsv: (table, columns, source) => engine.insertTsv(table, columns, source),
    close: () => engine.close(),
  };
}
