import { ApiError } from '../../src/common/errors/api-error';

/** The status and error body a call throws as an ApiError; fails the test when it throws nothing or something else. */
export function apiErrorOf(call: () => unknown): ReturnType<ApiError['toBody']> & { status: number } {
  try {
    call();
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, ...error.toBody() };
    throw error;
  }
  throw new Error('expected an ApiError');
}
