import { createHash, timingSafeEqual } from 'node:crypto';
import { AuthErrors } from '../../common/auth/auth-errors';
import { bearerToken } from '../../common/auth/key-sources';

/** Both sides are compared as SHA-256 digests: equal lengths, so the comparison takes the same time whatever was sent. */
export function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * Lets a scrape through when it carries the configured token as `Authorization: Bearer`, what Prometheus'
 * `authorization` (or `bearer_token`) scrape setting sends. `expected` is the token's digest; null means
 * METRICS_TOKEN is unset, which keeps /metrics off whatever is sent.
 */
export function checkMetricsToken(expected: Buffer | null, authorization: string | undefined): void {
  if (expected === null) throw AuthErrors.metricsOff();
  const presented = bearerToken(authorization);
  if (presented === null) throw AuthErrors.metricsTokenMissing();
  if (!timingSafeEqual(tokenDigest(presented), expected)) throw AuthErrors.metricsTokenInvalid();
}
