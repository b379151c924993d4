import { ApiError } from '../../common/errors/api-error';

/** A write made with a session cookie but without the session's CSRF token. */
export function csrfFailed(): ApiError {
  return new ApiError(403, 'authentication_error', 'csrf_failed', "CSRF failed: a write made with the session cookie must send the csrftoken cookie's value in the X-CSRFToken header.");
}
