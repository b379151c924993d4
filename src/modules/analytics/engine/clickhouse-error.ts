/** ClickHouse error codes the service reacts to (ClickHouse's src/Common/ErrorCodes.cpp). */
export const CLICKHOUSE_CODES = {
  BAD_ARGUMENTS: 36,
  TIMEOUT_EXCEEDED: 159,
  MEMORY_LIMIT_EXCEEDED: 241,
  CANNOT_COMPILE_REGEXP: 427,
} as const;

/**
 * A failure reported by ClickHouse, whichever engine ran the statement: chdb, a server over HTTP, or the
 * primary process of an API cluster. `code` is ClickHouse's numeric error code, null when the failure
 * did not come from ClickHouse itself (a closed engine, a broken connection).
 */
export class ClickHouseEngineError extends Error {
  constructor(
    message: string,
    readonly code: number | null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ClickHouseEngineError';
  }
}

/** ClickHouse prefixes every exception text with its code ("Code: 159. DB::Exception: …"). */
const CODE_IN_TEXT = /\bCode: (\d+)\./;

/**
 * The ClickHouse code an error carries, null for none. Reads, in order: an engine error's `code`, chdb's
 * `clickhouseCode`, @clickhouse/client's digit-string `code` (Node's own codes such as ECONNRESET are
 * not ClickHouse's), and last the code in the text (chdb's stream errors keep only the text).
 */
export function clickhouseCode(error: unknown): number | null {
  if (!(error instanceof Error)) return null;
  if (error instanceof ClickHouseEngineError) return error.code;
  const fields = error as { clickhouseCode?: unknown; code?: unknown };
  if (typeof fields.clickhouseCode === 'number') return fields.clickhouseCode;
  if (typeof fields.code === 'string' && /^\d+$/.test(fields.code)) return Number(fields.code);
  const inText = CODE_IN_TEXT.exec(error.message);
  return inText ? Number(inText[1]) : null;
}

/** Any engine's failure as a {@link ClickHouseEngineError}, the original kept as its cause. */
export function asEngineError(error: unknown): ClickHouseEngineError {
  if (error instanceof ClickHouseEngineError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ClickHouseEngineError(message, clickhouseCode(error), { cause: error });
}
