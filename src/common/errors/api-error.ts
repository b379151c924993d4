/** PostHog's error envelope (drf-exceptions-hog), used for every error on every endpoint. */
export interface ErrorBody {
  type: ErrorType;
  code: string;
  detail: string;
  attr: string | null;
}

export type ErrorType =
  | 'validation_error'
  | 'authentication_error'
  | 'invalid_request'
  | 'throttled_error'
  | 'server_error';

/** An error that knows its HTTP status and PostHog-shaped body. Throw it from anywhere. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    readonly code: string,
    readonly detail: string,
    readonly attr: string | null = null,
    /** Extra response headers, e.g. WWW-Authenticate or Allow. */
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }

  toBody(): ErrorBody {
    return { type: this.type, code: this.code, detail: this.detail, attr: this.attr };
  }

  static validation(detail: string, attr: string | null = null, code = 'invalid_input'): ApiError {
    return new ApiError(400, 'validation_error', code, detail, attr);
  }

  static notFound(detail = 'Not found.'): ApiError {
    return new ApiError(404, 'invalid_request', 'not_found', detail);
  }

  static permissionDenied(detail = 'You do not have permission to perform this action.'): ApiError {
    return new ApiError(403, 'authentication_error', 'permission_denied', detail);
  }

  static methodNotAllowed(method: string, allowed: string[] = []): ApiError {
    const headers: Record<string, string> = allowed.length ? { allow: allowed.join(', ') } : {};
    return new ApiError(405, 'invalid_request', 'method_not_allowed', `Method "${method}" not allowed.`, null, headers);
  }

  static conflict(detail: string): ApiError {
    return new ApiError(409, 'invalid_request', 'conflict', detail);
  }

  static serverError(): ApiError {
    return new ApiError(500, 'server_error', 'error', 'A server error occurred.');
  }

  static unavailable(detail: string): ApiError {
    return new ApiError(503, 'server_error', 'server_error', detail, null, { 'retry-after': '1' });
  }
}

/** An unknown path: where the API's routes are listed, and where a person who typed an address should go. */
export const ENDPOINT_NOT_FOUND = 'Endpoint not found: the API is described at /api/docs/ (OpenAPI at /api/schema/), and the web console is at /.';
