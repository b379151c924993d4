/**
 * How ClickHouse's HTTP interface reads a request, as far as @clickhouse/client uses it
 * (https://clickhouse.com/docs/interfaces/http): the statement is the `query` argument followed by the
 * body, values come as `param_<name>` arguments, and the other arguments are settings, except the few
 * that belong to the interface itself.
 */

/** Arguments of the interface that are not settings of the statement. */
const INTERFACE_ARGUMENTS = new Set([
  'query', 'database', 'query_id', 'session_id', 'session_timeout', 'session_check', 'role', 'user', 'password', 'quota_key',
  'default_format', 'wait_end_of_query', 'buffer_size', 'compress', 'decompress',
  // Settings that only shape the HTTP answer, which this front writes itself.
  'enable_http_compression', 'send_progress_in_http_headers', 'http_headers_progress_interval_ms',
]);

export interface FrontRequest {
  sql: string;
  database: string | null;
  queryId: string | null;
  /** The output format: the statement's own FORMAT clause, else `default_format`, else TabSeparated. */
  format: string;
  /** Values by name, typed as chdb binds them (see {@link bindParams}). */
  params: Record<string, string | null>;
  settings: Record<string, string>;
  isInsert: boolean;
  /** Rows an INSERT carried in the body, counted by lines (the line-delimited formats the client sends). */
  insertedRows: number;
  gzipAnswer: boolean;
}

export function parseFrontRequest(search: URLSearchParams, body: string, acceptEncoding: string | undefined): FrontRequest {
  const urlQuery = search.get('query') ?? '';
  const text = urlQuery && body ? `${urlQuery}\n${body}` : urlQuery || body;
  const rawParams: Record<string, string> = {};
  const settings: Record<string, string> = {};
  for (const [name, value] of search) {
    if (name.startsWith('param_')) rawParams[name.slice('param_'.length)] = value;
    else if (!INTERFACE_ARGUMENTS.has(name)) settings[name] = value;
  }
  const isInsert = /^\s*INSERT\b/i.test(text);
  const { sql, params } = bindParams(text, rawParams);
  return {
    sql,
    params,
    settings,
    isInsert,
    insertedRows: isInsert && urlQuery && body ? body.split('\n').filter((line) => line.trim() !== '').length : 0,
    database: search.get('database'),
    queryId: search.get('query_id'),
    format: (!isInsert && /\bFORMAT\s+(\w+)\s*;?\s*$/i.exec(text)?.[1]) || search.get('default_format') || 'TabSeparated',
    gzipAnswer: search.get('enable_http_compression') === '1' && /\bgzip\b/.test(acceptEncoding ?? ''),
  };
}

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*):([^{}]+)\}/g;
const COMPOSITE = /^(Nullable\()?(Array|Map|Tuple)\(/;

/**
 * The interface's parameter text as chdb takes it. The text of a scalar is escaped as in TabSeparated
 * (`\t`, `\'`, `\\`, `\N` for NULL) and chdb escapes the strings it is given the same way, so the text is
 * unescaped here. A composite value (`['a','b']`) keeps SQL quoting inside, which chdb would escape once
 * more; it is bound as its text instead and parsed by the engine: `{p:Array(String)}` becomes
 * `CAST({p:String} AS Array(String))`, which reads that same text format.
 */
export function bindParams(sql: string, raw: Record<string, string>): { sql: string; params: Record<string, string | null> } {
  const params: Record<string, string | null> = {};
  const rewritten = sql.replace(PLACEHOLDER, (placeholder, name: string, type: string) => {
    if (!(name in raw)) return placeholder;
    if (!COMPOSITE.test(type.trim())) {
      params[name] = raw[name] === '\\N' ? null : unescapeTabSeparated(raw[name]);
      return placeholder;
    }
    params[name] = raw[name];
    return `CAST({${name}:String} AS ${type})`;
  });
  return { sql: rewritten, params };
}

const ESCAPES: Record<string, string> = { t: '\t', n: '\n', r: '\r', b: '\b', f: '\f', '0': '\0', "'": "'", '\\': '\\' };

export function unescapeTabSeparated(text: string): string {
  return text.replace(/\\(.)/gs, (_escape, char: string) => ESCAPES[char] ?? char);
}

/** The settings as one SET statement; a number as it is, anything else as a quoted string. */
export function settingsStatement(settings: Record<string, string>): string | null {
  const entries = Object.entries(settings);
  if (entries.length === 0) return null;
  const assignments = entries.map(([name, value]) => {
    if (!/^[a-z_][a-z0-9_]*$/i.test(name)) throw new Error(`not a setting name: ${name}`);
    return `${name} = ${/^-?\d+(\.\d+)?$/.test(value) ? value : `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`}`;
  });
  return `SET ${assignments.join(', ')}`;
}
