import { ApiError } from '../../../../src/common/errors/api-error';
import type { AnalyticsEngine } from '../../../../src/modules/analytics/engine/analytics-engine';
import { ClickHouseEngineError } from '../../../../src/modules/analytics/engine/clickhouse-error';
import { translateQueryError, withQueryErrors } from '../../../../src/modules/analytics/engine/engine-errors';
import { LIMITS } from './engine-test-support';

const limits = { ...LIMITS, timeoutMs: 30_000, maxMemoryBytes: 512 * 1024 * 1024 };

function translated(error: unknown): unknown {
  return translateQueryError(error, limits);
}

function body(error: unknown): unknown {
  expect(error).toBeInstanceOf(ApiError);
  const api = error as ApiError;
  return { status: api.status, ...api.toBody() };
}

describe(translateQueryError.name, () => {
  it('answers a query stopped by the time limit with the 504 of every bounded reader', () => {
    const error = new ClickHouseEngineError('Code: 159. DB::Exception: Timeout exceeded: elapsed 30000 ms, maximum: 30000 ms. (TIMEOUT_EXCEEDED)', 159);
    expect(body(translated(error))).toEqual({
      status: 504,
      type: 'server_error',
      code: 'query_timeout',
      detail: 'The analytics query ran longer than the limit of 30000 ms (ANALYTICS_QUERY_TIMEOUT_MS) and was stopped: narrow the date range, the filters or the breakdown.',
      attr: null,
    });
  });

  it("answers a query over its own memory limit with a 400 naming the limit and its setting", () => {
    const error = new ClickHouseEngineError('Code: 241. DB::Exception: Query memory limit exceeded: would use 600.00 MiB, maximum: 512.00 MiB. (MEMORY_LIMIT_EXCEEDED)', 241);
    expect(body(translated(error))).toEqual({
      status: 400,
      type: 'validation_error',
      code: 'memory_limit_exceeded',
      detail: 'The analytics query needed more memory than its limit of 512 MB (ANALYTICS_QUERY_MAX_MEMORY_MB) and was stopped: narrow the date range, the filters or the breakdown.',
      attr: null,
    });
  });

  it('answers the engine running out of memory for all queries together with a 503', () => {
    const error = new ClickHouseEngineError('Code: 241. DB::Exception: Memory limit (total) exceeded: would use 22.70 GiB. (MEMORY_LIMIT_EXCEEDED)', 241);
    expect(body(translated(error))).toEqual({
      status: 503,
      type: 'server_error',
      code: 'server_error',
      detail: 'ClickHouse is out of memory for all running queries together; try again shortly.',
      attr: null,
    });
  });

  it.each([
    ['CANNOT_COMPILE_REGEXP', new ClickHouseEngineError('Code: 427. DB::Exception: OptimizedRegularExpression: cannot compile re2: (, error: missing ): (. (CANNOT_COMPILE_REGEXP)', 427)],
    ['BAD_ARGUMENTS about a regular expression', new ClickHouseEngineError('Code: 36. DB::Exception: Invalid regexp: (. (BAD_ARGUMENTS)', 36)],
    ["chdb's own error, its code in a field", Object.assign(new Error('Code: 427. DB::Exception: cannot compile re2'), { clickhouseCode: 427 })],
    ["@clickhouse/client's error, its code as text", Object.assign(new Error('cannot compile re2'), { code: '427' })],
    ["chdb's stream error, its code only in the text", new Error('Code: 427. DB::Exception: OptimizedRegularExpression: cannot compile re2')],
  ])('answers a pattern ClickHouse cannot compile (%s) with a 400 on the property filters', (_from, error) => {
    expect(body(translated(error))).toEqual({ status: 400, type: 'validation_error', code: 'invalid_input', detail: 'Invalid regular expression in property filters.', attr: 'properties' });
  });

  it.each([
    ['BAD_ARGUMENTS about something else', new ClickHouseEngineError('Code: 36. DB::Exception: Unknown setting. (BAD_ARGUMENTS)', 36)],
    ['a syntax error', new ClickHouseEngineError('Code: 62. DB::Exception: Syntax error. (SYNTAX_ERROR)', 62)],
    ['an error without a code', new ClickHouseEngineError('The analytics engine is closed.', null)],
    ["a network error (Node's codes are not ClickHouse's)", Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })],
    ['something thrown that is no Error', 'boom'],
  ])('rethrows %s unchanged', (_what, error) => {
    expect(translated(error)).toBe(error);
  });
});

describe(withQueryErrors.name, () => {
  const failing = (error: unknown): AnalyticsEngine => ({
    kind: 'embedded',
    query: () => Promise.reject(error),
    queryBatches: () => Promise.reject(error),
    command: () => Promise.reject(error),
    insert: () => Promise.reject(error),
    insertTsv: () => Promise.reject(error),
    close: () => Promise.resolve(),
  });

  it("translates a query's failure", async () => {
    const sut = withQueryErrors(failing(new ClickHouseEngineError('Code: 159. Timeout exceeded', 159)), limits);
    await expect(sut.query({ text: 'SELECT 1', params: {} })).rejects.toMatchObject({ status: 504, code: 'query_timeout' });
  });

  it("translates the failure of a query read in batches", async () => {
    const sut = withQueryErrors(failing(new ClickHouseEngineError('Code: 241. Memory limit exceeded', 241)), limits);
    await expect(sut.queryBatches({ text: 'SELECT 1', params: {} }, () => undefined)).rejects.toMatchObject({ status: 400, code: 'memory_limit_exceeded' });
  });

  it("leaves the failures of statements and inserts as the engine reports them (they are the copy's, not a reader's)", async () => {
    const error = new ClickHouseEngineError('Code: 159. Timeout exceeded', 159);
    const sut = withQueryErrors(failing(error), limits);
    await expect(sut.command('SELECT 1')).rejects.toBe(error);
    await expect(sut.insert('t', [{}])).rejects.toBe(error);
  });
});
