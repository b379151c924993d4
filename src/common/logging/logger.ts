import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';

/** Paths that may carry secrets in anything we log: keys never reach the log stream. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'api_key',
  'token',
  'personal_api_key',
  '*.api_key',
  '*.token',
  '*.personal_api_key',
  '*.password',
];

export function createRootLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'hogbase', pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: serializeError },
    },
    destination,
  );
}

/**
 * pino's error serializer, minus what can carry personal data: a TypeORM query error holds the SQL and its parameters
 * (lists of distinct ids, often e-mail addresses), and PostgreSQL's `detail` quotes the values of a violated key.
 */
export function serializeError(error: unknown): unknown {
  const serialized = pino.stdSerializers.err(error as Error) as unknown as Record<string, unknown>;
  if (!serialized || typeof serialized !== 'object') return serialized;
  for (const field of ['query', 'parameters', 'detail', 'driverError', 'where']) delete serialized[field];
  return serialized;
}

/** Lets Nest's per-class `Logger` write structured JSON lines through pino. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly root: Logger) {}

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  /** Nest's own boot chatter (one line per module and route) is debug detail, not news. */
  private static readonly QUIET_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication']);

  /**
   * Nest passes `(message, [stack], context)`, the context always last. Our code logs pino's way through the same
   * Logger, `(fields, 'message')`: then the first string after the fields is the message, not a stack.
   */
  private write(level: pino.Level, message: unknown, rest: unknown[]): void {
    const context = typeof rest[rest.length - 1] === 'string' ? (rest.pop() as string) : undefined;
    if (level === 'info' && context && PinoNestLogger.QUIET_CONTEXTS.has(context)) level = 'debug';
    const fields: Record<string, unknown> = context ? { context } : {};
    const texts: string[] = [];
    for (const extra of rest) {
      if (typeof extra === 'string') texts.push(extra);
      else if (extra && typeof extra === 'object') Object.assign(fields, extra);
    }
    if (message instanceof Error) {
      this.root[level]({ ...fields, err: message }, texts[0] ?? message.message);
    } else if (message && typeof message === 'object') {
      if (texts[1] !== undefined) fields.stack = texts[1];
      this.root[level]({ ...fields, ...(message as object) }, texts[0]);
    } else {
      if (texts[0] !== undefined) fields.stack = texts[0];
      this.root[level](fields, String(message));
    }
  }
}
