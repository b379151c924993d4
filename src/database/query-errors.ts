import { QueryFailedError } from 'typeorm';

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
