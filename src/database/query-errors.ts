import { QueryFailedError } from 'typeorm';
import { ApiError } from '../common/errors/api-error';

/** A unique index refused the write: a race with another writer that the caller turns into a 400. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const driverError = error.driverError as { code?: string; constraint?: string };
  return driverError.code === '23505' && (constraint === undefined || driverError.constraint === constraint);
}

/** Runs a write and turns a unique-index refusal (a lost race with another writer) into `toError()`. */
export async function onUniqueViolation<T>(write: () => Promise<T>, constraint: string | undefined, toError: () => Error): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw isUniqueViolation(error, constraint) ? toError() : error;
  }
}

/** SQLSTATE 57014 (query_canceled): the statement timeout (or a cancel) stopped the query. */
const QUERY_CANCELED = '57014';

/**
 * The query ran past its limit: the server's statement timeout stopped it, or the client's own read timeout behind
 * it gave up first. Raw `pg` errors and TypeORM's QueryFailedError (which copies the driver's fields) alike.
 */
export function isQueryTimeout(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (error as { code?: string }).code === QUERY_CANCELED || error.message === 'Query read timeout';
}

/** What a reader that bounds its queries tells the caller when one is stopped. */
export interface QueryLimit {
  /** What ran, as the message names it ("analytics query", "query"). */
  what: string;
  ms: number;
  /** The setting that holds the limit. */
  variable: string;
  /** What the caller can do about it, starting lower-case. */
  advice: string;
}

/** The 504 every bounded reader answers a stopped query with: the limit, the setting and what to do. */
export function queryTimeoutError(limit: QueryLimit): ApiError {
  return new ApiError(
    504,
    'server_error',
    'query_timeout',
    `The ${limit.what} ran longer than the limit of ${limit.ms} ms (${limit.variable}) and was stopped: ${limit.advice}.`,
  );
}
