import { QueryFailedError } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { PropertyFilterError } from '../../kernel/property-filters';

/**
 * SQLSTATEs a user's regex can raise in PostgreSQL even after RE2 accepted it (different dialects):
 * invalid_regular_expression, and program_limit_exceeded for patterns too complex to compile.
 */
const PATTERN_ERRORS = new Set(['2201B', '54000', '54001']);

/** Runs a filtered read; a filter the translator refuses, or a pattern PostgreSQL refuses is the caller's mistake (400), not a 500. */
export async function withFilterErrors<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof PropertyFilterError) throw ApiError.validation(error.detail);
    const code = error instanceof QueryFailedError ? (error.driverError as { code?: string }).code : undefined;
    if (code && PATTERN_ERRORS.has(code)) throw ApiError.validation('Invalid regular expression in property filters.');
    throw error;
  }
}
