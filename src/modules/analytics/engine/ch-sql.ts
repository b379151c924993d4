/**
 * ClickHouse SQL with every value bound: builders write `{pN:Type}` placeholders through {@link ChParams}
 * and only trusted text (column names, operators, numbers they produced themselves) into the SQL.
 * Both deployments bind the same way (chdb's bound queries, the HTTP interface's `param_` arguments), so
 * one text serves the embedded engine and a server.
 */
export interface ChSql {
  text: string;
  params: Record<string, unknown>;
}

/** ClickHouse types a bound value is declared with. */
export type ChType =
  | 'String' | 'Int64' | 'UInt64' | 'Float64' | 'UInt8' | 'Bool' | 'Date' | 'DateTime64(6, \'UTC\')'
  | 'Array(String)' | 'Array(Int64)' | 'Array(Float64)' | 'Array(UInt64)' | 'Array(UUID)';

function inferredType(value: unknown): ChType {
  if (typeof value === 'string') return 'String';
  if (typeof value === 'boolean') return 'Bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'Int64' : 'Float64';
  if (typeof value === 'bigint') return 'Int64';
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v === 'number' && Number.isInteger(v))) return value.length === 0 ? 'Array(String)' : 'Array(Int64)';
    if (value.every((v) => typeof v === 'number')) return 'Array(Float64)';
    return 'Array(String)';
  }
  throw new Error(`no ClickHouse type for a bound ${typeof value}`);
}

/** Bound values of one query, named in order; fragments built by helpers bind into the same instance. */
export class ChParams {
  readonly params: Record<string, unknown> = {};
  private next = 0;

  add(value: unknown, type: ChType = inferredType(value)): string {
    const name = `p${this.next++}`;
    this.params[name] = type === 'Bool' ? (value ? 1 : 0) : value;
    return `{${name}:${type === 'Bool' ? 'UInt8' : type}}`;
  }

  sql(text: string): ChSql {
    return { text, params: this.params };
  }
}
