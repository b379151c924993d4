import { ApiError } from '../../common/errors/api-error';

/** A write made with a session cookie but without the session's CSRF token. */
export function csrfFailed(): ApiError {
  return new ApiError(403, 'authentication_error', 'csrf_failed', "CSRF failed: a write made with the session cookie must send the csrftoken cookie's value in the X-CSRFToken header.");
}

/** Too many failed sign-ins (for an e-mail, or from an address): when to try again, and how to get back in sooner. */
export function signInLocked(scope: string, waitSeconds: number): ApiError {
  const minutes = Math.max(1, Math.ceil(waitSeconds / 60));
  return new ApiError(
    429,
    'throttled_error',
    'too_many_sign_in_attempts',
    `Too many failed sign-ins ${scope}: try again in ${minutes} minute${minutes === 1 ? '' : 's'}, or set a new password with \`npm run cli -- users set-password --email <e-mail>\`.`,
    null,
    { 'retry-after': String(minutes * 60) },
  );
}
