import { ApiError } from '../../../common/errors/api-error';
import type { AnalyticsEngine } from './analytics-engine';

/** Without CLICKHOUSE_URL, when the embedded engine could not be used: the variable that fixes it, and why. */
export function embeddedUnavailableDetail(reason: string): string {
  return `Insights need ClickHouse: set CLICKHOUSE_URL to a ClickHouse server (the embedded engine is not available here: ${reason}).`;
}

/** With CLICKHOUSE_URL, when the server could not be prepared at boot (unreachable, refused the credentials, …). */
export function serverUnavailableDetail(address: string, reason: string): string {
  return `Insights need ClickHouse: the server at CLICKHOUSE_URL (${address}) could not be prepared when the service started (${reason}); restart the service once it answers.`;
}

/**
 * Where no engine could be opened: every call answers 503 with the way out, and the rest of the service
 * (capture, flags, the management API) runs on. A retry would not help, so no Retry-After.
 */
export class UnavailableEngine implements AnalyticsEngine {
  readonly kind = 'unavailable' as const;

  constructor(readonly detail: string) {}

  query<R>(): Promise<R[]> {
    return Promise.reject(this.error());
  }

  queryBatches(): Promise<void> {
    return Promise.reject(this.error());
  }

  command(): Promise<void> {
    return Promise.reject(this.error());
  }

  insert(): Promise<void> {
    return Promise.reject(this.error());
  }

  insertTsv(): Promise<void> {
    return Promise.reject(this.error());
  }

  async close(): Promise<void> {}

  private error(): ApiError {
    return new ApiError(503, 'server_error', 'service_unavailable', this.detail);
  }
}
