import { QueryFailedError } from 'typeorm';
import { isQueryTimeout, queryTimeoutError } from '../../src/database/query-errors';

/** A driver error as `pg` raises it: an Error with the SQLSTATE in `code`. */
const pgError = (code: string) => Object.assign(new Error('canceling statement due to statement timeout'), { code });

describe(isQueryTimeout.name, () => {
  it('is true for the statement timeout, raw or wrapped by TypeORM', () => {
    expect(isQueryTimeout(pgError('57014'))).toBe(true);
    expect(isQueryTimeout(new QueryFailedError('SELECT 1', [], pgError('57014')))).toBe(true);
  });

  it("is true for the client's read timeout, raw or wrapped by TypeORM", () => {
    expect(isQueryTimeout(new Error('Query read timeout'))).toBe(true);
    expect(isQueryTimeout(new QueryFailedError('SELECT 1', [], new Error('Query read timeout')))).toBe(true);
  });

  it('is false for other errors', () => {
    expect([isQueryTimeout(pgError('2201B')), isQueryTimeout(new Error('boom')), isQueryTimeout('57014'), isQueryTimeout(null)]).toEqual([false, false, false, false]);
  });
});

describe(queryTimeoutError.name, () => {
  it('names the limit, its setting and what to do, as a 504', () => {
    const sut = queryTimeoutError({ what: 'query', ms: 250, variable: 'SOME_TIMEOUT_MS', advice: 'narrow the filters' });
    expect([sut.status, sut.toBody()]).toEqual([
      504,
      { type: 'server_error', code: 'query_timeout', detail: 'The query ran longer than the limit of 250 ms (SOME_TIMEOUT_MS) and was stopped: narrow the filters.', attr: null },
    ]);
  });
});
