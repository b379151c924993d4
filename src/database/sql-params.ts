import { cleanJson } from '../common/json/clean-text';

/**
 * Bound values as `$n` placeholders in order, numbered from `first` so fragments can follow other
 * parameters: every value from a request goes through here, never into SQL text. NUL and lone
 * surrogates become U+FFFD, as ingestion stores them (PostgreSQL text and jsonb refuse both).
 */
export class SqlParams {
  readonly values: unknown[] = [];
  constructor(private readonly first = 1) {}

  add(value: unknown): string {
    this.values.push(cleanJson(value));
    return `$${this.first + this.values.length - 1}`;
  }
}
