import { cleanJson } from '../common/json/clean-text';

/**
 * Bound values as `$n` placeholders in order: every value from a request goes through here, never
 * into SQL text, and fragments built by helpers (property filters) bind into the same instance as the
 * query around them. NUL and lone surrogates become U+FFFD, as ingestion stores them (PostgreSQL text
 * and jsonb refuse both).
 */
export class SqlParams {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(cleanJson(value));
    return `$${this.values.length}`;
  }
}
