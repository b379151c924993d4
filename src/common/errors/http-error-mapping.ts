import { HttpException } from '@nestjs/common';
import { ApiError } from './api-error';

/** The error codes Fastify raises before our handlers run, mapped to PostHog's envelope. */
interface FastifyishError {
  code?: string;
  statusCode?: number;
  message?: string;
}

/**
 * Turns anything thrown into an ApiError. Pure: the filter only writes what this returns,
 * so the mapping is testable without an HTTP server.
 */
export function toApiError(error: unknown, maxBodyBytes: number): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof HttpException) return fromHttpException(error, maxBodyBytes);
  const fastifyError = error as FastifyishError;
  switch (fastifyError?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return payloadTooLarge(maxBodyBytes);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError(400, 'invalid_request', 'parse_error', 'JSON parse error - Expecting value: line 1 column 1 (char 0)');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, 'invalid_request', 'unsupported_media_type', 'Unsupported media type in request.');
  }
  if (fastifyError?.statusCode === 400 && error instanceof SyntaxError) {
    return new ApiError(400, 'invalid_request', 'parse_error', `JSON parse error - ${error.message}`);
  }
  if (fastifyError?.statusCode === 413) return payloadTooLarge(maxBodyBytes);
  return ApiError.serverError();
}

export function payloadTooLarge(maxBodyBytes: number): ApiError {
  return new ApiError(
    413,
    'invalid_request',
    'payload_too_large',
    `Request body is larger than the limit of ${maxBodyBytes} bytes.`,
  );
}

function fromHttpException(error: HttpException, maxBodyBytes: number): ApiError {
  const status = error.getStatus();
  if (status === 404) return ApiError.notFound();
  if (status === 413) return payloadTooLarge(maxBodyBytes);
  if (status === 401) {
    return new ApiError(401, 'authentication_error', 'not_authenticated', 'Authentication credentials were not provided.');
  }
  if (status === 403) return ApiError.permissionDenied();
  if (status === 400) return ApiError.validation(error.message);
  if (status === 405) return new ApiError(405, 'invalid_request', 'method_not_allowed', error.message);
  if (status === 429) return new ApiError(429, 'throttled_error', 'throttled', 'Request was throttled.');
  if (status < 500) return new ApiError(status, 'invalid_request', 'error', error.message);
  return ApiError.serverError();
}
