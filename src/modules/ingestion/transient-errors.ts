/** PostgreSQL errors that go away on their own: connection loss, shutdown, deadlock, serialization, races. */
const TRANSIENT_SQLSTATES = new Set(['40001', '40P01', '23505', '53300', '55P03', '57P01', '57P02', '57P03', '57014']);
const TRANSIENT_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);
const TRANSIENT_MESSAGES =
  /connection terminated|timeout exceeded when trying to connect|connection ended|server closed the connection|connection is closed|terminating connection|the database system is (starting up|shutting down)|Client has encountered a connection error/i;

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  driverError?: ErrorLike;
  cause?: unknown;
}

/** Whether retrying the same work later can succeed: the database came back, a lock was freed. */
export function isTransientError(error: unknown): boolean {
  const candidates: ErrorLike[] = [];
  let current = error as ErrorLike | undefined;
  for (let depth = 0; current && depth < 4; depth++) {
    candidates.push(current);
    current = (current.driverError ?? current.cause) as ErrorLike | undefined;
  }
  return candidates.some((candidate) => {
    const code = typeof candidate.code === 'string' ? candidate.code : '';
    if (TRANSIENT_SQLSTATES.has(code) || code.startsWith('08') || TRANSIENT_NODE_CODES.has(code)) return true;
    return typeof candidate.message === 'string' && TRANSIENT_MESSAGES.test(candidate.message);
  });
}

/** Backoff for the n-th retry (from 0): 100 ms doubling up to 5 s, with jitter so workers do not stampede. */
export function retryDelayMs(attempt: number): number {
  const base = Math.min(5000, 100 * 2 ** Math.min(attempt, 10));
  return Math.round(base * (0.75 + Math.random() * 0.5));
}
